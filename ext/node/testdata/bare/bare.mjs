#!/usr/bin/env node
// sdkbare: declares no addition; its additive calls fail at once.
import * as zut from './zut_ext.mjs';

const ext = new zut.Extension('sdkbare', '0.1.0');
ext.command('try', 'calls additions it did not declare', async () => {
  const out = [];
  for (const [name, fn] of [['select', () => ext.select({ message: 'x', options: ['a'] })], ['print', () => ext.print('x')],
    ['status priority', () => ext.setStatus('k', 't', 'info', 1)]]) {
    try {
      await fn();
      out.push(name + ' ok');
    } catch (err) {
      if (!(err instanceof zut.CapabilityError)) throw err;
      out.push(`${name} host=${err.host} ${err.message}`);
    }
  }
  return out.join(' | ');
});
ext.tool('echo', '', null, (args) => args.text || '');
ext.run();
