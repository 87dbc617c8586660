import { createRequire } from 'node:module';
import { Document, NodeIO } from '@gltf-transform/core';
import sharp from 'sharp';
import { renderCache } from './cache.js';
import { MediaInputError, seedKey, type Seed } from '../../../media/errors.js';
import { digestHex, rngFor, type Rng } from './hash.js';
import type { RenderedImage } from './image.js';
import { hex, makePalette, type Rgb } from './palette.js';

type Vec3 = [number, number, number];
type Tri = [Vec3, Vec3, Vec3];

export type MeshShape = 'gem' | 'rock' | 'tower';

export interface RenderMeshOptions {
  prompt?: string;
  seed?: Seed;
}

export interface RenderedMesh {
  mesh: {
    bytes: Buffer;
    mime: 'model/gltf-binary';
    shape: MeshShape;
    vertexCount: number;
    triangleCount: number;
  };
  thumbnail: RenderedImage;
}

export const MESH_THUMBNAIL_SIZE = 256;

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const len = (a: Vec3): number => Math.sqrt(dot(a, a));
const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];

function gem(rng: Rng): Tri[] {
  const n = rng.int(5, 10);
  const r = 1;
  const top: Vec3 = [0, rng.range(0.5, 1.2), 0];
  const bottom: Vec3 = [0, -rng.range(0.8, 1.6), 0];
  const ring: Vec3[] = [];
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    ring.push([r * Math.cos(a), 0, r * Math.sin(a)]);
  }
  const tris: Tri[] = [];
  for (let i = 0; i < n; i++) {
    const a = ring[i] as Vec3;
    const b = ring[(i + 1) % n] as Vec3;
    tris.push([top, a, b], [bottom, b, a]);
  }
  return tris;
}

function rock(rng: Rng): Tri[] {
  const t = (1 + Math.sqrt(5)) / 2;
  const verts: Vec3[] = [
    [-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0],
    [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t],
    [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1],
  ].map((v) => scale(v as Vec3, 1 / len(v as Vec3)));
  let faces: Array<[number, number, number]> = [
    [0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11],
    [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8],
    [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9],
    [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1],
  ];
  // One subdivision: 80 faces reads as a rock rather than a die.
  const mid = new Map<string, number>();
  const midpoint = (a: number, b: number): number => {
    const k = a < b ? `${a}:${b}` : `${b}:${a}`;
    let i = mid.get(k);
    if (i === undefined) {
      const va = verts[a] as Vec3;
      const vb = verts[b] as Vec3;
      const m: Vec3 = [(va[0] + vb[0]) / 2, (va[1] + vb[1]) / 2, (va[2] + vb[2]) / 2];
      i = verts.push(scale(m, 1 / len(m))) - 1;
      mid.set(k, i);
    }
    return i;
  };
  faces = faces.flatMap(([a, b, c]) => {
    const ab = midpoint(a, b);
    const bc = midpoint(b, c);
    const ca = midpoint(c, a);
    return [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]] as Array<[number, number, number]>;
  });
  // Radial displacement keeps the surface star-shaped around the origin, so
  // no triangle can fold over or collapse.
  const stretch: Vec3 = [rng.range(0.8, 1.3), rng.range(0.6, 1.1), rng.range(0.8, 1.3)];
  const shaped = verts.map((v) => {
    const d = rng.range(0.82, 1.18);
    return [v[0] * d * stretch[0], v[1] * d * stretch[1], v[2] * d * stretch[2]] as Vec3;
  });
  return faces.map(([a, b, c]) => [shaped[a] as Vec3, shaped[b] as Vec3, shaped[c] as Vec3]);
}

function tower(rng: Rng): Tri[] {
  const n = rng.int(3, 8);
  const segments = rng.int(2, 5);
  const height = rng.range(1.6, 2.6);
  const twist = rng.range(-0.5, 0.5);
  const taper = rng.range(0.35, 1);
  const rings: Vec3[][] = [];
  for (let s = 0; s <= segments; s++) {
    const f = s / segments;
    const r = 1 - (1 - taper) * f;
    const y = -height / 2 + height * f;
    const ring: Vec3[] = [];
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n + twist * s;
      ring.push([r * Math.cos(a), y, r * Math.sin(a)]);
    }
    rings.push(ring);
  }
  const tris: Tri[] = [];
  for (let s = 0; s < segments; s++) {
    const lo = rings[s] as Vec3[];
    const hi = rings[s + 1] as Vec3[];
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      tris.push([lo[i] as Vec3, hi[i] as Vec3, hi[j] as Vec3], [lo[i] as Vec3, hi[j] as Vec3, lo[j] as Vec3]);
    }
  }
  const bottom = rings[0] as Vec3[];
  const top = rings[segments] as Vec3[];
  const bc: Vec3 = [0, -height / 2, 0];
  const tc: Vec3 = [0, height / 2, 0];
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    tris.push([bc, bottom[i] as Vec3, bottom[j] as Vec3], [tc, top[j] as Vec3, top[i] as Vec3]);
  }
  return tris;
}

interface Face {
  tri: Tri;
  normal: Vec3;
  color: Rgb;
}

function buildFaces(rng: Rng, shape: MeshShape): Face[] {
  const tris = shape === 'gem' ? gem(rng) : shape === 'rock' ? rock(rng) : tower(rng);
  const pal = makePalette(rng);
  const lo = pal.accents[0] ?? pal.shadow;
  const hi = pal.accents[1] ?? pal.shadow;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const t of tris) for (const v of t) [minY, maxY] = [Math.min(minY, v[1]), Math.max(maxY, v[1])];
  const faces: Face[] = [];
  for (const tri of tris) {
    let [a, b, c] = tri;
    let n = cross(sub(b, a), sub(c, a));
    const l = len(n);
    // Degenerate triangles are a validator warning and render as nothing.
    if (l < 1e-9) continue;
    n = scale(n, 1 / l);
    const centroid: Vec3 = [(a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3, (a[2] + b[2] + c[2]) / 3];
    // Every shape is star-shaped around the origin, so this fixes any
    // inward-facing winding without per-shape bookkeeping.
    if (dot(n, centroid) < 0) {
      [b, c] = [c, b];
      n = scale(n, -1);
    }
    const k = (centroid[1] - minY) / (maxY - minY || 1);
    const jitter = rng.range(-12, 12);
    const color: Rgb = [0, 1, 2].map((i) => Math.max(0, Math.min(255, Math.round((lo[i] ?? 0) + ((hi[i] ?? 0) - (lo[i] ?? 0)) * k + jitter)))) as unknown as Rgb;
    faces.push({ tri: [a, b, c], normal: n, color });
  }
  return faces;
}

const srgbToLinear = (c: number): number => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
};

async function encodeGlb(faces: Face[], rng: Rng, shape: MeshShape): Promise<Buffer> {
  const positions = new Float32Array(faces.length * 9);
  const normals = new Float32Array(faces.length * 9);
  // glTF vertex colours are linear; sRGB values would render washed out.
  const colors = new Float32Array(faces.length * 9);
  faces.forEach((f, i) => {
    f.tri.forEach((v, j) => {
      const o = i * 9 + j * 3;
      positions.set(v, o);
      normals.set(f.normal, o);
      colors.set([srgbToLinear(f.color[0]), srgbToLinear(f.color[1]), srgbToLinear(f.color[2])], o);
    });
  });
  // Float32 rounding can leave a normal a hair off unit length; the validator
  // tolerates that, but renormalise in float32 anyway.
  for (let i = 0; i < normals.length; i += 3) {
    const l = Math.hypot(normals[i] ?? 0, normals[i + 1] ?? 0, normals[i + 2] ?? 0);
    normals[i] = (normals[i] ?? 0) / l;
    normals[i + 1] = (normals[i + 1] ?? 0) / l;
    normals[i + 2] = (normals[i + 2] ?? 0) / l;
  }
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'mmgen simulator';
  const buffer = doc.createBuffer();
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer))
    .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(normals).setBuffer(buffer))
    .setAttribute('COLOR_0', doc.createAccessor().setType('VEC3').setArray(colors).setBuffer(buffer))
    .setMaterial(
      doc
        .createMaterial(shape)
        .setBaseColorFactor([1, 1, 1, 1])
        .setMetallicFactor(Number(rng.range(0, 0.3).toFixed(3)))
        .setRoughnessFactor(Number(rng.range(0.35, 0.9).toFixed(3))),
    );
  const node = doc.createNode(shape).setMesh(doc.createMesh(shape).addPrimitive(prim));
  const scene = doc.createScene('scene').addChild(node);
  doc.getRoot().setDefaultScene(scene);
  const glb = await new NodeIO().writeBinary(doc);
  return Buffer.from(glb.buffer, glb.byteOffset, glb.byteLength);
}

/** Flat-shaded orthographic render of the faces as SVG, rasterised by sharp. */
async function thumbnail(faces: Face[], rng: Rng): Promise<RenderedImage> {
  const size = MESH_THUMBNAIL_SIZE;
  const yaw = rng.range(0, Math.PI * 2);
  const pitch = 0.35;
  const rot = (v: Vec3): Vec3 => {
    const x1 = v[0] * Math.cos(yaw) - v[2] * Math.sin(yaw);
    const z1 = v[0] * Math.sin(yaw) + v[2] * Math.cos(yaw);
    const y2 = v[1] * Math.cos(pitch) - z1 * Math.sin(pitch);
    const z2 = v[1] * Math.sin(pitch) + z1 * Math.cos(pitch);
    return [x1, y2, z2];
  };
  let radius = 0;
  for (const f of faces) for (const v of f.tri) radius = Math.max(radius, len(v));
  const k = (size * 0.42) / (radius || 1);
  const light: Vec3 = scale([-0.4, 0.7, 0.6], 1 / len([-0.4, 0.7, 0.6]));
  const drawn = faces
    .map((f) => ({ pts: f.tri.map(rot) as Tri, n: rot(f.normal), color: f.color }))
    // The camera looks down -z: faces whose normal points away are hidden.
    .filter((f) => f.n[2] > 0)
    .map((f) => ({ ...f, depth: (f.pts[0][2] + f.pts[1][2] + f.pts[2][2]) / 3 }))
    .sort((a, b) => a.depth - b.depth);
  const pal = makePalette(rng);
  const bg0 = pal.background[0] ?? pal.shadow;
  const bg1 = pal.background[2] ?? pal.shadow;
  const polys = drawn.map((f) => {
    const shade = 0.35 + 0.65 * Math.max(0, dot(f.n, light));
    const c: Rgb = [Math.round(f.color[0] * shade), Math.round(f.color[1] * shade), Math.round(f.color[2] * shade)];
    const pts = f.pts.map((p) => `${(size / 2 + p[0] * k).toFixed(1)},${(size / 2 - p[1] * k).toFixed(1)}`).join(' ');
    // A hairline stroke of the same colour hides the seams anti-aliasing leaves between faces.
    return `<polygon points="${pts}" fill="${hex(c)}" stroke="${hex(c)}" stroke-width="0.6" stroke-linejoin="round"/>`;
  });
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">` +
    `<defs><linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${hex(bg0)}"/><stop offset="1" stop-color="${hex(bg1)}"/></linearGradient></defs>` +
    `<rect width="${size}" height="${size}" fill="url(#bg)"/>${polys.join('')}</svg>`;
  const bytes = await sharp(Buffer.from(svg)).removeAlpha().jpeg({ quality: 85 }).toBuffer();
  return { bytes, mime: 'image/jpeg', width: size, height: size };
}

/**
 * A small flat-shaded, vertex-coloured GLB whose shape family and proportions
 * come from the prompt and seed, plus a JPEG thumbnail of it. Cached; returned
 * Buffers are shared.
 */
export async function renderMesh(opts: RenderMeshOptions): Promise<RenderedMesh> {
  const prompt = opts.prompt ?? '';
  if (typeof prompt !== 'string') throw new MediaInputError('prompt must be a string');
  const seed = seedKey(opts.seed);
  const key = 'mesh:' + digestHex(prompt, seed);
  return renderCache.getOrCreate(
    key,
    async () => {
      const rng = rngFor('mesh', prompt, seed);
      const shape = rng.pick(['gem', 'rock', 'tower'] as const);
      const faces = buildFaces(rng, shape);
      const bytes = await encodeGlb(faces, rng, shape);
      const thumb = await thumbnail(faces, rng);
      return {
        mesh: { bytes, mime: 'model/gltf-binary', shape, vertexCount: faces.length * 3, triangleCount: faces.length },
        thumbnail: thumb,
      } as RenderedMesh;
    },
    (v) => v.mesh.bytes.length + v.thumbnail.bytes.length + 512,
  );
}

export interface GlbValidation {
  numErrors: number;
  numWarnings: number;
  numInfos: number;
  messages: Array<{ code: string; message: string; severity: number; pointer?: string }>;
}

interface GltfValidatorModule {
  validateBytes(data: Uint8Array, options?: { format?: 'glb' | 'gltf'; maxIssues?: number }): Promise<{
    issues: GlbValidation;
  }>;
}

let validator: GltfValidatorModule | undefined;

/**
 * Runs the Khronos glTF validator over a GLB. Loaded on first use: the
 * validator is a multi-megabyte compiled-Dart bundle that serving never needs.
 */
export async function validateGlb(bytes: Uint8Array): Promise<GlbValidation> {
  validator ??= createRequire(import.meta.url)('gltf-validator') as GltfValidatorModule;
  const report = await validator.validateBytes(new Uint8Array(bytes), { format: 'glb', maxIssues: 100 });
  return report.issues;
}
