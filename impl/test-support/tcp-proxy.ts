/**
 * Loopback network faults for the Postgres tests (test-only).
 * - `startProxy(host, port)`: a TCP proxy in front of a server. `dropNextReply()` makes it swallow the
 *   next bytes the server sends on any connection and cut that connection both ways: the server did
 *   the work (a commit), the client never hears of it — the honest "applied, answer lost" fault.
 * - `startSilentServer()`: accepts connections and never says a word (a hung server).
 * - `closedPort()`: a port on 127.0.0.1 nothing listens on (connections are refused).
 */
import net from 'node:net';

export interface Proxy {
  readonly port: number;
  /** Swallow the next server→client bytes and cut that connection. */
  dropNextReply(): void;
  /** Connections cut by dropNextReply so far. */
  readonly cut: number;
  close(): Promise<void>;
}

export async function startProxy(host: string, port: number): Promise<Proxy> {
  let armed = false;
  let cut = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    const forget = () => {
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', forget);
    upstream.on('close', forget);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      if (armed) {
        armed = false;
        cut += 1;
        upstream.destroy();
        client.destroy();
        return;
      }
      client.write(d);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    dropNextReply: () => {
      armed = true;
    },
    get cut() {
      return cut;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function startSilentServer(): Promise<{ readonly port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
