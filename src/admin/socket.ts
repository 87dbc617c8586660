import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { ApiError } from '../errors.js';
import { AdminCommandError, runAdminCommand, type AdminCommand, type AdminPorts } from './commands.js';

/**
 * The operator's door into a running embedded server: a Unix socket in the
 * data directory, readable and writable by its owner only. PGlite allows one
 * process per data directory, so CLI commands go through here while `serve` runs.
 */
export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'mmgen.sock');
}

export async function startAdminSocket(dataDir: string, ports: AdminPorts): Promise<Server> {
  const path = adminSocketPath(dataDir);
  if (existsSync(path)) unlinkSync(path); // left by a killed process; we hold the data-dir lock
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      raw += c;
    });
    req.on('end', () => {
      void (async () => {
        let status = 200;
        let body: unknown;
        try {
          body = await runAdminCommand(ports, JSON.parse(raw) as AdminCommand);
        } catch (err) {
          status = err instanceof AdminCommandError || err instanceof ApiError ? 400 : 500;
          body = { error: err instanceof Error ? err.message : String(err) };
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

export function sendAdminCommand(dataDir: string, cmd: AdminCommand): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: adminSocketPath(dataDir), method: 'POST', path: '/admin', headers: { 'content-type': 'application/json' } }, (res) => {
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        raw += c;
      });
      res.on('end', () => {
        try {
          const body = JSON.parse(raw) as { error?: string };
          if (res.statusCode === 200) resolve(body);
          else reject(new AdminCommandError(body.error ?? `admin socket answered ${res.statusCode}`));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(cmd));
  });
}
