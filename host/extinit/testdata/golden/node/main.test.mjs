// Tests of demo: they start main.mjs as zut would and speak the
// protocol with it. Run them in this directory: node --test
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

// Host is a small stand-in for zut: it starts the extension, does the
// handshake and exchanges frames with it.
class Host {
  constructor() {
    this.proc = spawn(path.join(here, 'main.mjs'), [], { cwd: here, stdio: ['pipe', 'pipe', 'inherit'] });
    this.frames = [];
    this.waiters = [];
    this.seq = 0;
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      this.frames.push(JSON.parse(line));
      this.wake();
    });
  }

  wake() {
    for (const w of [...this.waiters]) w();
  }

  send(frame) {
    this.proc.stdin.write(JSON.stringify(frame) + '\n');
  }

  // next resolves with the next frame (of type), skipping others.
  next(type) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type || 'frame'} within 10 s`)), 10000);
      const check = () => {
        while (this.frames.length > 0) {
          const f = this.frames.shift();
          if (!type || f.type === type) {
            clearTimeout(timer);
            this.waiters = this.waiters.filter((w) => w !== check);
            resolve(f);
            return;
          }
        }
      };
      this.waiters.push(check);
      check();
    });
  }

  async start() {
    const hello = await this.next();
    assert.equal(hello.type, 'hello');
    assert.equal(hello.name, 'demo');
    assert.equal(hello.protocol_version, 2);
    this.send({ type: 'hello_ack', protocol_version: 2, zut_version: 'test', provider: 'test', model: 'test',
      cwd: here, extension_dir: here, data_dir: here });
    await this.next('ready');
  }

  async request(frame, reply) {
    frame.id = String(++this.seq);
    this.send(frame);
    const f = await this.next(reply);
    assert.equal(f.id, frame.id);
    return f;
  }

  async close() {
    const exited = new Promise((resolve) => this.proc.on('exit', resolve));
    this.send({ type: 'shutdown' });
    await this.next('shutdown_ack');
    return exited;
  }
}

async function withHost(fn) {
  const host = new Host();
  await host.start();
  try {
    await fn(host);
  } finally {
    assert.equal(await host.close(), 0);
  }
}

test('command', () => withHost(async (host) => {
  const r = await host.request({ type: 'command_invoked', name: 'demo', args: 'hi' }, 'command_response');
  assert.equal(r.display, 'demo: hi');
}));

test('tool', () => withHost(async (host) => {
  let r = await host.request({ type: 'tool_call', name: 'demo', args: { text: 'hi' } }, 'tool_result');
  assert.deepEqual(r.content, [{ type: 'text', text: 'HI' }]);
  r = await host.request({ type: 'tool_call', name: 'demo', args: {} }, 'tool_result');
  assert.equal(r.is_error, true);
}));

test('panel', () => withHost(async (host) => {
  const r = await host.request({ type: 'command_invoked', name: 'demo-panel', args: '' }, 'command_response');
  assert.equal(r.action, 'open_panel');
  assert.equal(r.open_panel.lines[0], '› first item');
  host.send({ type: 'panel_key', panel_id: 'demo-panel', key: 'down' });
  assert.equal((await host.next('panel_render')).lines[1], '› second item');
  host.send({ type: 'panel_key', panel_id: 'demo-panel', key: 'enter' });
  assert.equal((await host.next('notify')).message, 'picked second item');
}));
