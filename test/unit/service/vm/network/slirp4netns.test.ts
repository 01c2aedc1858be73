// Reading which ports listen in a VM's network namespace from /proc/<pid>/net/tcp{,6}.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listeningPorts } from '../../../../../src/service/vm/network/slirp4netns.js';

test('listening ports: state 0A only, hex ports, IPv4 and IPv6 lines, the header ignored', () => {
  const table = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid',
    '   0: 0100007F:1B9E 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0',
    '   1: 0100007F:1B9F 0100007F:C350 01 00000000:00000000 00:00000000 00000000 0',
    '   0: 00000000000000000000000001000000:1F40 00000000000000000000000000000000:0000 0A 0',
    '',
  ].join('\n');
  assert.deepEqual([...listeningPorts(table)].sort(), [7070, 8000]);
  assert.deepEqual([...listeningPorts('')], []);
});
