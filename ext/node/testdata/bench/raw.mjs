#!/usr/bin/env node
// The raw-JSON equivalent of sdk.mjs: the same tool, no SDK.
import readline from 'node:readline';

const emit = (f) => process.stdout.write(JSON.stringify(f) + '\n');
emit({ type: 'hello', protocol_version: 2, name: 'bench', version: '1', capabilities: ['tools'] });
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const f = JSON.parse(line);
  if (f.type === 'hello_ack') {
    emit({ type: 'register_tool', name: 'echo', description: 'echo' });
    emit({ type: 'ready' });
  } else if (f.type === 'tool_call') {
    emit({ type: 'tool_result', id: f.id, content: [{ type: 'text', text: f.args.text || '' }] });
  } else if (f.type === 'shutdown') {
    emit({ type: 'shutdown_ack' });
    process.exit(0);
  }
});
