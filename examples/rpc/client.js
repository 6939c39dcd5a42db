#!/usr/bin/env node
// Drive zut's RPC mode from Node.js: send one prompt, print what happens.
//
// Usage: client.js PROMPT [ZUT FLAGS...]
//
// $ZUT names the zut binary (default: zut). The flags go to `zut rpc`.
// Set ZUTCORE_RPC_TOKEN to make zut require it; this client sends it in
// hello.
'use strict';

const { spawn } = require('child_process');
const readline = require('readline');

const [prompt, ...flags] = process.argv.slice(2);
if (!prompt) {
  console.error('usage: client.js PROMPT [ZUT FLAGS...]');
  process.exit(2);
}

const zut = spawn(process.env.ZUT || 'zut', ['rpc', ...flags], { stdio: ['pipe', 'pipe', 'inherit'] });
const pending = new Map(); // command id -> resolve
let nextId = 0;

// send writes a command and resolves with its response's data.
function send(cmd) {
  const id = ++nextId;
  zut.stdin.write(JSON.stringify({ ...cmd, id }) + '\n');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

let onDone = null;
readline.createInterface({ input: zut.stdout }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.type === 'response') {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (p) msg.success ? p.resolve(msg.data) : p.reject(new Error(`${msg.command}: ${msg.error}`));
    return;
  }
  show(msg);
  if (msg.type === 'done' && onDone) onDone();
});

function show(msg) {
  switch (msg.type) {
    case 'text_delta':
      process.stdout.write(msg.delta);
      break;
    case 'assistant_message':
      process.stdout.write('\n');
      break;
    case 'tool_call':
      console.log(`[tool] ${msg.name} ${JSON.stringify(msg.args)}`);
      break;
    case 'tool_result': {
      const text = msg.content.filter((b) => b.type === 'text').map((b) => b.text).join(' ');
      console.log(`[${msg.is_error ? 'error' : 'result'}] ${text}`);
      break;
    }
    case 'error':
      console.log(`[error] ${msg.message}`);
      break;
    case 'done':
      console.log('[done]');
      break;
    default:
      if (msg.type.startsWith('ext_')) console.log(`[${msg.type}] ${JSON.stringify(msg)}`);
  }
}

async function main() {
  const hello = await send({ type: 'hello', token: process.env.ZUTCORE_RPC_TOKEN || '' });
  console.log(`[zut ${hello.version}] ${hello.provider}/${hello.model}`);
  console.log(`> ${prompt}`);
  const done = new Promise((resolve) => { onDone = resolve; });
  await send({ type: 'prompt', message: prompt });
  await done;
  const { usage } = await send({ type: 'get_state' });
  console.log(`[usage] ${usage.input} input, ${usage.output} output tokens, $${usage.cost_usd.toFixed(6)}`);
  zut.stdin.end(); // end of stdin: zut finishes and exits
}

zut.on('exit', (code) => process.exit(code === null ? 1 : code));
main().catch((err) => {
  console.error(`zut: ${err.message}`);
  zut.stdin.end();
  process.exitCode = 1;
});
