import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, test } from 'vitest';
import { isLoopbackHost, joinAddress, lanAddresses, startMessage, type JoinAddressInput, type NetworkInterfaces } from '../src/joinAddress.ts';

/** One interface entry as `os.networkInterfaces()` gives it (only the fields the rules read matter). */
function nic(address: string, options: { internal?: boolean } = {}): NetworkInterfaceInfo {
  const family = address.includes(':') ? 'IPv6' : 'IPv4';
  const common = { address, netmask: family === 'IPv4' ? '255.255.255.0' : 'ffff:ffff:ffff:ffff::', mac: '00:00:00:00:00:00', internal: options.internal ?? false, cidr: null };
  return family === 'IPv4' ? { ...common, family } : { ...common, family, scopeid: 0 };
}

/** A teacher's laptop: loopback, Docker's bridge listed before the Wi-Fi, an IPv6 link-local and a global address. */
const laptop: NetworkInterfaces = {
  lo: [nic('127.0.0.1', { internal: true }), nic('::1', { internal: true })],
  docker0: [nic('172.17.0.1')],
  wlan0: [nic('192.168.1.20'), nic('fe80::1c2a:9ff:fe3b:1'), nic('2001:db8::20')],
  eth0: [nic('10.0.0.5')],
};
const offline: NetworkInterfaces = { lo: [nic('127.0.0.1', { internal: true })] };

const input = (over: Partial<JoinAddressInput>): JoinAddressInput => ({
  publicUrl: undefined,
  listenHost: '127.0.0.1',
  port: 3000,
  interfaces: laptop,
  pageOrigin: 'http://localhost:3000',
  viaTrustedProxy: false,
  ...over,
});

describe('the join address students are shown (rules JA1–JA5)', () => {
  test('JA1: a configured PUBLIC_URL wins over everything the server could work out', () => {
    for (const listenHost of ['127.0.0.1', '0.0.0.0']) {
      expect(joinAddress(input({ publicUrl: 'https://board.school.org', listenHost, pageOrigin: 'http://192.168.1.20:3000' }))).toEqual({
        base: 'https://board.school.org',
        reach: 'public',
        others: [],
      });
    }
  });

  test('JA2: a page opened at a LAN address or a host name shows that origin, which reaches the server', () => {
    expect(joinAddress(input({ listenHost: '0.0.0.0', pageOrigin: 'http://192.168.1.20:3000' }))).toEqual({ base: 'http://192.168.1.20:3000', reach: 'network', others: [] });
    expect(joinAddress(input({ listenHost: '0.0.0.0', pageOrigin: 'http://ms-rivera.local:3000' }))).toEqual({ base: 'http://ms-rivera.local:3000', reach: 'network', others: [] });
    // Behind a trusted proxy on the same machine the server listens on loopback; the forwarded host reaches it.
    expect(joinAddress(input({ listenHost: '127.0.0.1', pageOrigin: 'https://board.school.org', viaTrustedProxy: true }))).toEqual({ base: 'https://board.school.org', reach: 'network', others: [] });
  });

  test('JA3: listening on loopback only, nobody else can join, whatever name the page used', () => {
    expect(joinAddress(input({}))).toEqual({ base: 'http://localhost:3000', reach: 'this_computer', others: [] });
    expect(joinAddress(input({ pageOrigin: 'http://127.0.0.1:3000' }))).toEqual({ base: 'http://127.0.0.1:3000', reach: 'this_computer', others: [] });
    // A name that resolves to this computer (a hosts file, the browser suite's classroom.test) is still only this computer.
    expect(joinAddress(input({ pageOrigin: 'http://classroom.test:3000' })).reach).toBe('this_computer');
    expect(joinAddress(input({ listenHost: '::1', pageOrigin: null }))).toEqual({ base: 'http://localhost:3000', reach: 'this_computer', others: [] });
  });

  test('JA4: listening on every interface, a teacher on localhost is shown a LAN address, never a loopback name', () => {
    expect(joinAddress(input({ listenHost: '0.0.0.0' }))).toEqual({
      base: 'http://192.168.1.20:3000',
      reach: 'network',
      others: ['http://10.0.0.5:3000', 'http://172.17.0.1:3000'],
    });
    // `::` takes IPv6 too: its global address after the IPv4 ones, never the link-local one.
    expect(joinAddress(input({ listenHost: '::', pageOrigin: 'http://[::1]:3000' })).others).toEqual(['http://10.0.0.5:3000', 'http://172.17.0.1:3000', 'http://[2001:db8::20]:3000']);
    expect(joinAddress(input({ listenHost: '0.0.0.0', interfaces: offline }))).toEqual({ base: 'http://localhost:3000', reach: 'no_network', others: [] });
  });

  test('JA5: listening on one address, that address', () => {
    expect(joinAddress(input({ listenHost: '10.0.0.5' }))).toEqual({ base: 'http://10.0.0.5:3000', reach: 'network', others: [] });
    expect(joinAddress(input({ listenHost: '2001:db8::20' })).base).toBe('http://[2001:db8::20]:3000');
  });

  test('lanAddresses: IPv4 before IPv6, real adapters before virtual ones and link-local IPv4, loopback never', () => {
    const mixed: NetworkInterfaces = {
      'vEthernet (WSL)': [nic('172.28.16.1')],
      utun3: [nic('100.64.0.7')],
      en0: [nic('169.254.10.10'), nic('192.168.0.42')],
      lo0: [nic('127.0.0.1', { internal: true })],
    };
    expect(lanAddresses(mixed, '0.0.0.0', 8080).map((a) => `${a.base} ${a.adapter}`)).toEqual([
      'http://192.168.0.42:8080 en0',
      'http://172.28.16.1:8080 vEthernet (WSL)',
      'http://100.64.0.7:8080 utun3',
      'http://169.254.10.10:8080 en0',
    ]);
  });

  test('loopback names: localhost, *.localhost, 127/8, ::1 in every spelling; LAN addresses and names are not', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['192.168.1.20', 'classroom.test', '0.0.0.0', '::', '2001:db8::1', 'localhost.school.org']) expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('the start message', () => {
  test('loopback only: says only this computer can join and names the one command that opens the lesson to the class', () => {
    expect(startMessage({ publicUrl: undefined, listenHost: '127.0.0.1', port: 3000, interfaces: laptop })).toEqual([
      'Classroom whiteboard is running: http://127.0.0.1:3000',
      'Only this computer can join. To open the lesson to the class, stop this and run: pnpm start:class',
    ]);
  });

  test('every interface: each LAN address students can open, best first, with its adapter; never a loopback address', () => {
    const lines = startMessage({ publicUrl: undefined, listenHost: '0.0.0.0', port: 3000, interfaces: laptop });
    expect(lines).toEqual([
      'Classroom whiteboard is running: http://localhost:3000',
      'Students open (on the same network as this computer):',
      '  http://192.168.1.20:3000  (wlan0)',
      '  http://10.0.0.5:3000      (eth0)',
      '  http://172.17.0.1:3000    (docker0)',
    ]);
    expect(lines.slice(1).join('\n')).not.toMatch(/localhost|127\.0\.0\.1|::1/);
    expect(startMessage({ publicUrl: undefined, listenHost: '0.0.0.0', port: 3000, interfaces: offline })[1]).toMatch(/no network students can reach/);
  });

  test('a configured public URL is the one address printed for students', () => {
    expect(startMessage({ publicUrl: 'https://board.school.org', listenHost: '0.0.0.0', port: 3000, interfaces: laptop })).toEqual([
      'Classroom whiteboard is running: http://localhost:3000',
      'Students open: https://board.school.org',
    ]);
  });
});
