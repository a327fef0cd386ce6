// Real HTTP servers on loopback addresses for the HTTP gate's tests; each counts what it saw.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TestServer {
  host: string;
  port: number;
  /** host:port as written in allowed_hosts. */
  authority: string;
  url(path?: string): string;
  requests: SeenRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** Connections open right now. */
  openConnections(): number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, seen: SeenRequest) => void;

/** `port` 0 (the default) takes a free one; another server's port on another address is free too. */
export async function startServer(host: string, handler: Handler, port = 0): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      handler(req, res, seen);
    });
  });
  let accepted = 0;
  let open = 0;
  server.on('connection', (socket) => {
    accepted++;
    open++;
    socket.on('close', () => open--);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const authority = host.includes(':') ? `[${host}]:${bound}` : `${host}:${bound}`;
  return {
    host,
    port: bound,
    authority,
    url: (path = '/') => `http://${authority}${path}`,
    requests,
    connections: () => accepted,
    openConnections: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function closeAll(servers: TestServer[]): Promise<void[]> {
  return Promise.all(servers.map((s) => s.close()));
}

export const text = (body: Uint8Array): string => Buffer.from(body).toString('utf8');
