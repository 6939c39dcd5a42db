#!/usr/bin/env node
// demo: a zut extension on the Node SDK (zut_ext.mjs beside it).
//
// Run it with `zut --ext .` in this directory; test it with
// `node --test`. The SDK is documented in docs/sdk-node.md of the zut
// repository.
import * as zut from './zut_ext.mjs';

const ext = new zut.Extension('demo', '0.1.0');

ext.command('demo', 'say hello from demo (/demo some text)', (args) => {
  if (!args) return zut.display('demo: hello! Try /demo some text');
  return zut.display('demo: ' + args);
});

const toolSchema = {
  type: 'object',
  properties: { text: { type: 'string', description: 'the text to shout' } },
  required: ['text'],
};

ext.tool('demo', 'Return the text in capital letters.', toolSchema, (args) => {
  if (typeof args.text !== 'string') return zut.errorResult('demo: text must be a string, for example {"text": "hi"}');
  return args.text.toUpperCase();
});

const PANEL = 'demo-panel';
const ITEMS = ['first item', 'second item', 'third item'];
let cursor = 0;

const picker = () => ({
  id: PANEL,
  title: 'demo',
  lines: ITEMS.map((item, i) => (i === cursor ? '› ' : '  ') + item),
  footer: '↑/↓ move · enter pick · esc close',
});

ext.command('demo-panel', 'pick an item in a panel', () => {
  cursor = 0;
  return zut.panelResponse(picker());
});

ext.onPanelKey((k) => {
  if (k.panel_id !== PANEL) return;
  if (k.key === 'up' || k.key === 'down') {
    cursor = (cursor + (k.key === 'down' ? 1 : ITEMS.length - 1)) % ITEMS.length;
    ext.renderPanel(picker());
  } else if (k.key === 'enter') {
    ext.closePanel(PANEL);
    ext.notify('picked ' + ITEMS[cursor]);
  }
});

ext.run();
