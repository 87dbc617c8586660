// nsfwjs's MobileNetV2 as an ONNX model, built in memory from the Keras layers model and the weights that ship inside
// the nsfwjs npm package, so that ONNX Runtime (onnxruntime-node: native kernels, AVX2/AVX-512 where the CPU has them)
// can run the very same network that TensorFlow.js runs. Nothing is downloaded and no model file is kept in the
// repository: the translation is deterministic, so the weights are exactly nsfwjs's (dequantized as tfjs does) and
// the scores agree with tfjs's to float rounding (test/unit/nsfw-onnx.test.ts holds them together).
//
// Layers are translated one to one (Conv, BatchNormalization, Clip, Add, AveragePool, Gemm, …); ONNX Runtime's own
// graph optimizer then folds each batch normalization and ReLU6 into its convolution. The graph takes the decoded
// image as uint8 NHWC, [batch, size, size, 3], and divides by 255 itself, as nsfwjs's infer() does.
//
// Plain JavaScript for the reason given in nsfw-model.mjs (it runs in the classifier's worker threads).
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/** nsfwjs's own bundled model definitions (model JSON and base64 weight shards, inside the package). */
async function layersModel(name) {
  if (name !== 'MobileNetV2') throw new Error(`no ONNX translation of nsfwjs ${name} (only MobileNetV2)`);
  const def = (await import('nsfwjs/models/mobilenet_v2')).MobileNetV2Model;
  const json = (await def.modelJson()).default;
  const shards = [];
  for (const bundle of def.weightBundles) shards.push(Buffer.from((await bundle()).default, 'base64'));
  return { json, weights: Buffer.concat(shards) };
}

const BYTES = { uint8: 1, uint16: 2, float32: 4, int32: 4 };

/** tfjs's weights manifest → Float32Arrays by name, dequantized the way tfjs's io.decodeWeights does (q × scale + min). */
export function decodeWeights(specs, data) {
  const out = new Map();
  let offset = 0;
  for (const spec of specs) {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const q = spec.quantization;
    if (spec.dtype !== 'float32') throw new Error(`weight ${spec.name}: dtype ${spec.dtype} is not supported`);
    const bytes = BYTES[q ? q.dtype : 'float32'];
    if (!bytes) throw new Error(`weight ${spec.name}: quantization ${q?.dtype} is not supported`);
    const view = new DataView(data.buffer, data.byteOffset + offset, n * bytes);
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      if (!q) values[i] = view.getFloat32(i * 4, true);
      else if (q.dtype === 'uint8') values[i] = view.getUint8(i) * q.scale + q.min;
      else values[i] = view.getUint16(i * 2, true) * q.scale + q.min;
    }
    out.set(spec.name, { shape: spec.shape, values });
    offset += n * bytes;
  }
  if (offset !== data.length) throw new Error(`weights: ${data.length} bytes, the manifest describes ${offset}`);
  return out;
}

/** Keras HWIO kernel [kh, kw, in, out] → ONNX OIHW [out, in, kh, kw]. */
function convKernel({ shape: [kh, kw, ci, co], values }) {
  const w = new Float32Array(values.length);
  for (let i = 0; i < kh; i++) for (let j = 0; j < kw; j++) for (let c = 0; c < ci; c++) for (let o = 0; o < co; o++) {
    w[((o * ci + c) * kh + i) * kw + j] = values[((i * kw + j) * ci + c) * co + o];
  }
  return { dims: [co, ci, kh, kw], values: w };
}

/** Keras depthwise kernel [kh, kw, C, m] → ONNX grouped kernel [C·m, 1, kh, kw] (output channel c·m + k, as in TF). */
function depthwiseKernel({ shape: [kh, kw, ch, m], values }) {
  const w = new Float32Array(values.length);
  for (let i = 0; i < kh; i++) for (let j = 0; j < kw; j++) for (let c = 0; c < ch; c++) for (let k = 0; k < m; k++) {
    w[((c * m + k) * kh + i) * kw + j] = values[((i * kw + j) * ch + c) * m + k];
  }
  return { dims: [ch * m, 1, kh, kw], values: w };
}

/** TensorFlow's padding of one spatial axis: `same` puts the odd pixel after, `valid` pads nothing. */
function axisPads(padding, size, k, s) {
  if (padding === 'valid') return { before: 0, after: 0, out: Math.floor((size - k) / s) + 1 };
  const out = Math.ceil(size / s);
  const total = Math.max((out - 1) * s + k - size, 0);
  return { before: Math.floor(total / 2), after: total - Math.floor(total / 2), out };
}

/**
 * The ONNX model (bytes) of nsfwjs's `name`, with its input side. Throws on any layer or setting it does not
 * translate, rather than building something else.
 */
export async function nsfwOnnxModel(name = 'MobileNetV2') {
  const { json, weights } = await layersModel(name);
  const W = decodeWeights(json.weightsManifest.flatMap((g) => g.weights), weights);
  const weight = (layer, w) => {
    const t = W.get(`${layer}/${w}`);
    if (!t) throw new Error(`weight ${layer}/${w} missing`);
    return t;
  };
  const config = json.modelTopology.model_config.config;
  const nodes = [];
  const initializers = [];
  const tensor = (tname, dims, values) => {
    const f = Float32Array.from(values); // little-endian bytes, as ONNX's raw_data is
    initializers.push(onnx.TensorProto.create({ name: tname, dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(f.buffer) }));
    return tname;
  };
  const attr = (aname, value) => {
    const A = onnx.AttributeProto.AttributeType;
    if (Array.isArray(value)) return onnx.AttributeProto.create({ name: aname, type: A.INTS, ints: value });
    if (Number.isInteger(value)) return onnx.AttributeProto.create({ name: aname, type: A.INT, i: value });
    return onnx.AttributeProto.create({ name: aname, type: A.FLOAT, f: value });
  };
  const node = (opType, inputs, output, attrs = {}) => {
    nodes.push(onnx.NodeProto.create({ opType, input: inputs, output: [output], name: output, attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)) }));
    return output;
  };

  // What each Keras tensor is in the graph: its ONNX name, spatial size, channels, and padding still to apply.
  const seen = new Map();
  const input = config.layers[0];
  if (input.class_name !== 'InputLayer') throw new Error('the model does not start with its input');
  const [, size, sizeW, channels] = input.config.batch_input_shape;
  if (size !== sizeW || channels !== 3) throw new Error(`unexpected input shape ${input.config.batch_input_shape}`);
  tensor('scale', [], [255]);
  tensor('zero', [], [0]);
  tensor('six', [], [6]);
  node('Cast', ['image'], 'image_float', { to: onnx.TensorProto.DataType.FLOAT });
  node('Div', ['image_float', 'scale'], 'image_unit');
  seen.set(input.name, { name: node('Transpose', ['image_unit'], input.name, { perm: [0, 3, 1, 2] }), size, channels, pad: null });

  for (const layer of config.layers.slice(1)) {
    const c = layer.config;
    const ins = layer.inbound_nodes[0].map(([from]) => {
      const t = seen.get(from);
      if (!t) throw new Error(`${layer.name}: input ${from} not built yet`);
      return t;
    });
    const [x] = ins;
    if (x.pad && layer.class_name !== 'Conv2D' && layer.class_name !== 'DepthwiseConv2D') throw new Error(`${layer.name}: padding not followed by a convolution`);
    if (c.activation && c.activation !== 'linear' && !(layer.class_name === 'Dense' && (c.activation === 'relu' || c.activation === 'softmax'))) {
      throw new Error(`${layer.name}: activation ${c.activation} not translated`);
    }
    if (c.data_format && c.data_format !== 'channels_last') throw new Error(`${layer.name}: data_format ${c.data_format}`);
    let out;
    switch (layer.class_name) {
      case 'ZeroPadding2D': {
        const [[top, bottom], [left, right]] = c.padding;
        out = { ...x, size: x.size + top + bottom, pad: [top, left, bottom, right] };
        if (left + right !== top + bottom) throw new Error(`${layer.name}: non-square padding`);
        break;
      }
      case 'Conv2D':
      case 'DepthwiseConv2D': {
        const [k, kw] = c.kernel_size;
        const [s, sw] = c.strides;
        if (k !== kw || s !== sw || c.dilation_rate.some((d) => d !== 1)) throw new Error(`${layer.name}: non-square kernel, stride or dilation`);
        const depthwise = layer.class_name === 'DepthwiseConv2D';
        const kernel = depthwise ? depthwiseKernel(weight(layer.name, 'depthwise_kernel')) : convKernel(weight(layer.name, 'kernel'));
        const p = axisPads(c.padding, x.size, k, s);
        const before = x.pad ?? [0, 0, 0, 0];
        const pads = [before[0] + p.before, before[1] + p.before, before[2] + p.after, before[3] + p.after];
        const inputs = [x.name, tensor(`${layer.name}.W`, kernel.dims, kernel.values)];
        if (c.use_bias) inputs.push(tensor(`${layer.name}.B`, [kernel.dims[0]], weight(layer.name, 'bias').values));
        const attrs = { kernel_shape: [k, k], strides: [s, s], pads, dilations: [1, 1], group: depthwise ? x.channels : 1 };
        out = { name: node('Conv', inputs, layer.name, attrs), size: p.out, channels: kernel.dims[0], pad: null };
        break;
      }
      case 'BatchNormalization': {
        if (c.axis !== -1 && c.axis !== 3 && !(Array.isArray(c.axis) && c.axis.length === 1 && c.axis[0] === 3)) throw new Error(`${layer.name}: axis ${c.axis}`);
        const n = x.channels;
        const gamma = c.scale ? weight(layer.name, 'gamma').values : new Float32Array(n).fill(1);
        const beta = c.center ? weight(layer.name, 'beta').values : new Float32Array(n);
        const inputs = [x.name, tensor(`${layer.name}.g`, [n], gamma), tensor(`${layer.name}.b`, [n], beta), tensor(`${layer.name}.m`, [n], weight(layer.name, 'moving_mean').values), tensor(`${layer.name}.v`, [n], weight(layer.name, 'moving_variance').values)];
        out = { ...x, name: node('BatchNormalization', inputs, layer.name, { epsilon: c.epsilon }) };
        break;
      }
      case 'ReLU': {
        if ((c.negative_slope ?? 0) !== 0 || (c.threshold ?? 0) !== 0) throw new Error(`${layer.name}: leaky or thresholded ReLU`);
        out = { ...x, name: c.max_value == null ? node('Relu', [x.name], layer.name) : node('Clip', [x.name, 'zero', c.max_value === 6 ? 'six' : tensor(`${layer.name}.max`, [], [c.max_value])], layer.name) };
        break;
      }
      case 'Add':
        if (ins.some((t) => t.size !== x.size || t.channels !== x.channels)) throw new Error(`${layer.name}: shapes differ`);
        out = { ...x, name: ins.slice(1).reduce((acc, t, i) => node('Add', [acc, t.name], i === ins.length - 2 ? layer.name : `${layer.name}.${i}`), x.name) };
        break;
      case 'AveragePooling2D': {
        const [k] = c.pool_size;
        const [s] = c.strides ?? c.pool_size;
        if (c.padding !== 'valid') throw new Error(`${layer.name}: padding ${c.padding}`);
        out = { ...x, name: node('AveragePool', [x.name], layer.name, { kernel_shape: [k, k], strides: [s, s] }), size: Math.floor((x.size - k) / s) + 1 };
        break;
      }
      case 'Flatten':
        // NCHW flattens in the same order as Keras's NHWC only when nothing spatial is left.
        if (x.size !== 1) throw new Error(`${layer.name}: flattening ${x.size}×${x.size} (channel order would differ)`);
        out = { ...x, name: node('Flatten', [x.name], layer.name, { axis: 1 }) };
        break;
      case 'Dense': {
        const kernel = weight(layer.name, 'kernel');
        const [fanIn, units] = kernel.shape;
        if (fanIn !== x.channels) throw new Error(`${layer.name}: ${fanIn} inputs, got ${x.channels}`);
        const inputs = [x.name, tensor(`${layer.name}.W`, kernel.shape, kernel.values)];
        if (c.use_bias) inputs.push(tensor(`${layer.name}.B`, [units], weight(layer.name, 'bias').values));
        const gemm = node('Gemm', inputs, c.activation === 'linear' ? layer.name : `${layer.name}.linear`);
        const name = c.activation === 'relu' ? node('Relu', [gemm], layer.name) : c.activation === 'softmax' ? node('Softmax', [gemm], layer.name, { axis: -1 }) : gemm;
        out = { ...x, name, channels: units };
        break;
      }
      case 'Dropout': // inference: the identity
        out = x;
        break;
      default:
        throw new Error(`${layer.name}: layer ${layer.class_name} not translated`);
    }
    seen.set(layer.name, out);
  }
  const last = seen.get(config.output_layers[0][0]);
  const outputName = node('Identity', [last.name], 'probs');
  const A = onnx.TensorProto.DataType;
  const valueInfo = (vname, elemType, dims) =>
    onnx.ValueInfoProto.create({ name: vname, type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType, shape: onnx.TensorShapeProto.create({ dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) }) }) }) });
  const graph = onnx.GraphProto.create({
    name: `nsfwjs-${name}`,
    node: nodes,
    initializer: initializers,
    input: [valueInfo('image', A.UINT8, ['batch', size, size, 3])],
    output: [valueInfo(outputName, A.FLOAT, ['batch', last.channels])],
  });
  const model = onnx.ModelProto.create({ irVersion: 8, producerName: 'mmgen', opsetImport: [{ domain: '', version: 13 }], graph });
  return { bytes: onnx.ModelProto.encode(model).finish(), size, classes: last.channels };
}
