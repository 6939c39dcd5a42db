#!/usr/bin/env node
// sdkfull: every feature of zut_ext.mjs, for the Go tests of ext/node.
import * as zut from './zut_ext.mjs';

const ext = new zut.Extension('sdkfull', '1.2.3');
ext.use(zut.HOST_REQUESTS, zut.UI2);
const seen = []; // events, in order

ext.onHello((host) => {
  // A registration made after hello_ack is announced before ready.
  ext.command('late', 'registered in onHello', () => 'late ' + host.cwd);
  ext.notify('early note'); // queued until ready
});

ext.command('prompt', 'a prompt', (args) => zut.prompt('P:' + args));
ext.command('insert', '', (args) => zut.insert('I:' + args));
ext.command('display', '', async (args) => 'D:' + args);
ext.command('noop', '', () => undefined);
ext.command('err', '', (args) => zut.error('bad input: ' + args));
ext.command('fail', 'throws', () => { throw new RangeError('boom'); });
ext.command('badreturn', '', () => 42);
ext.command('pick', 'completion', (args) => 'picked ' + args, {
  complete: (prefix) => ['alpha', 'beta', 'gamma'].filter((o) => o.startsWith(prefix)),
});
ext.command('panel', 'opens a panel', () => zut.panelResponse({ id: 'sdk-panel', title: 'T', lines: ['a', 'b'], footer: 'F' }));
ext.onPanelKey((k) => {
  if (k.key === 'down') ext.renderPanel({ id: k.panel_id, title: 'T', lines: ['a', '> b'] });
  else if (k.key === 'rune' && k.text === 'x') ext.closePanel(k.panel_id);
});
ext.onPanelClose((id) => ext.notify('closed ' + id));

ext.command('events', 'the events seen', () => seen.join(' | '));
ext.on('session_opened', (ev) => { seen.push(`session_opened ${ev.session.id} ${JSON.stringify(ev.state)}`); });
ext.on('turn_start', async (ev) => {
  await new Promise((r) => setTimeout(r, 20)); // a slow handler still runs before the next event
  seen.push(`turn_start ${ev.step}`);
});
ext.on('turn_end', (ev) => { seen.push(`turn_end ${ev.stop}`); });
ext.on('agent_end', (ev) => { seen.push(`agent_end ${ev.stop} ${ev.response}`); });
ext.on('turn_start', () => { throw new Error('an event handler that throws does not stop the others'); });
ext.onCustom('ping', (ev) => { seen.push(`custom ${ev.name} ${JSON.stringify(ev.data)} from ${ev.from}`); });

ext.command('ask', 'dialogs', async () => {
  const s = await ext.select({ message: 'Where?', options: ['staging', 'production'], title: 'Deploy' });
  const c = await ext.confirm({ message: 'Sure?', default: true });
  const i = await ext.input({ message: 'Note', placeholder: 'what' });
  const o = await ext.overlay({ text: '**Done**', markdown: true, actions: ['ok', 'undo'] });
  return `${s.value}/${s.index} ${c.value} ${i.value} ${o.action}/${o.index}`;
});
ext.command('info', 'session and model', async () => {
  const s = await ext.sessionInfo();
  const m = await ext.model();
  const msgs = await ext.messages();
  const st = await ext.contextStats();
  const tools = await ext.tools();
  const models = await ext.models();
  return `${s.id} ${s.branch.id} ${m.model} ${msgs.length} ${st.estimated_tokens} ${tools[0].name} ${models.length}`;
});
ext.command('llm', 'a completion', async () => {
  const chunks = [];
  const r = await ext.complete({ system: 'be brief', prompt: 'hi' }, { onChunk: (c) => chunks.push(c) });
  return `${r.text} ${JSON.stringify(chunks)}`;
});
ext.command('opt', 'options', async () => {
  const before = await ext.option('color');
  const r = await ext.setOption('color', 'red');
  return `${before} ${r.value} ${await ext.option('color')}`;
});
ext.command('entries', 'custom entries', async () => {
  const id = await ext.appendEntry('note', { n: 1 });
  const es = await ext.entries('note');
  return `${id} ${es.length} ${JSON.stringify(es[es.length - 1].data)}`;
});
ext.command('app', 'app control', async () => {
  await ext.send('queued prompt', 'steer');
  await ext.setEditorText('new text');
  await ext.emitCustom('ping', { from: 'sdkfull' });
  await ext.setActiveTools(['read']);
  await ext.setActiveTools(null);
  await ext.setModel('fake/m2');
  const ran = [];
  await ext.suspendTUI(() => ran.push(true));
  await ext.exit();
  await ext.reload();
  return `app ${JSON.stringify(ran)}`;
});
ext.command('hosterr', 'a request the host refuses', async () => {
  try {
    await ext.request('no.such_method');
  } catch (err) {
    if (err instanceof zut.HostError) return `HostError ${err.method}: ${err.message}`;
    throw err;
  }
  return 'no error';
});
ext.command('ui', 'ui frames', () => {
  ext.print('a note', 'info');
  ext.print('boxed', 'plain', { renderer: 'box' });
  ext.setHeader('head', { markdown: true });
  ext.setFooter('foot');
  ext.clearHeader();
  ext.clearFooter();
  ext.setUIVisibility({ hide_status_bar: true });
  ext.setStatus('st', 'status text', 'warn', 5);
  ext.setStatus('plain', 'plain status');
  ext.clearStatus('plain');
  ext.setWidget('w', ['one', 'two'], { title: 'W' });
  ext.setWidget('w2', ['below'], { position: 'below_input', priority: 2, border_color: '#ff0000' });
  ext.clearWidget('w2');
  ext.notify('warned', 'warn');
  ext.clearNotes();
  ext.alert('question_ready');
  ext.submit('submitted text');
  ext.submitSlash('/pick alpha');
  ext.setEditor(['Control + S'], (k) => ({ action: 'submit', text: k.text + '!' }));
  return zut.noop();
});
ext.command('stray', 'writes to stdout', () => {
  console.log('stray print to stdout');
  process.stdout.write('stray write to stdout\n');
  return 'strayed';
});
ext.shortcut('ctrl+alt+s', 'a shortcut', async () => {
  ext.notify('shortcut model ' + (await ext.model()).model);
});
// Any spelling zut accepts claims the key; a name no key has is refused.
ext.shortcut('Ctrl + Alt + Q', 'spelled loosely', () => ext.notify('shortcut q'));
ext.shortcut('ctrl+bogus', 'no such key', () => ext.notify('shortcut bogus'));
ext.toolRenderer('echo', {
  header: (args, width) => `echo ${args.text} (${width})`,
  body: (result, isError, width) => result.toUpperCase() + (isError ? ' ERR' : ''),
});
ext.messageRenderer('box', (content, width) => ['[' + content + ']', String(width)]);
ext.registerOption('color', 'a colour', 'blue');

const echoSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
ext.tool('echo', 'echo the text', echoSchema, (args) => {
  if (typeof args.text !== 'string') return zut.errorResult('echo: text must be a string');
  return args.text;
});
ext.tool('state', 'saves state', null, (args) => {
  if (args.mode === 'clear') return zut.textResult('cleared', { details: null });
  if (args.mode === 'keep') return zut.textResult('kept');
  return zut.textResult('saved', { details: { v: args.v } });
});
ext.tool('image', 'an image', null, () => zut.imageResult('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47])));
ext.tool('boom', 'throws', null, async () => { throw new TypeError('kaput'); });
ext.tool('badresult', 'returns a number', null, () => 42);
ext.tool('loader', 'activates hidden', null, () => zut.textResult('loaded', { activate_tools: ['hidden'] }));
ext.tool('hidden', 'a deferred tool', null, () => 'hidden ran', { deferred: true });
ext.tool('progress', 'reports progress', null, (args, call) => {
  call.progress('half');
  call.progress('all');
  return 'done ' + call.id;
});
ext.tool('wait', 'waits until cancelled', null, async (args, call) => {
  ext.notify('waiting ' + call.name);
  await new Promise((resolve) => call.signal.addEventListener('abort', resolve));
  ext.notify('cancelled wait');
  return 'not cancelled';
}, { interactive: true });
ext.tool('askwait', 'a dialog nobody answers', null, async (args, call) => {
  try {
    await ext.select({ message: 'nobody answers', options: ['a'] }, { signal: call.signal });
  } catch (err) {
    ext.notify('request cancelled: ' + err.message);
    throw err;
  }
  return 'answered';
}, { interactive: true });

ext.intercept('tool_call', (ev) => {
  if (ev.tool_name === 'bash') return { modified_args: { ...ev.tool_args, guarded: true } };
});
ext.intercept('tool_call', (ev) => {
  if ((ev.tool_args.command || '').includes('rm -rf') && ev.tool_args.guarded) return { block: true, reason: 'refused: rm -rf' };
});
ext.intercept('turn_start', (ev) => ({ context: `first ${ev.step}` }));
ext.intercept('turn_start', () => { throw new Error('an interceptor that throws is skipped'); });
ext.intercept('turn_start', async () => ({ context: '  second  ' }));
ext.intercept('assistant_message', (ev) => (ev.text === 'hide' ? { block: true, reason: 'hidden' } : { replace_text: ev.text.replace('SECRET', '[redacted]') }));
ext.intercept('input', (ev) => {
  if (ev.text === '/handled') return { action: 'handled' };
  if (ev.text.startsWith('shout ')) return { action: 'transform', text: ev.text.slice(6).toUpperCase() };
});
ext.intercept('before_agent_start', (ev) => ({ system_prompt: 'SP for ' + ev.prompt, inject_text: 'inject' }));
ext.intercept('tool_result', (ev) => (ev.tool_name === 'read' ? { content: ev.content.toUpperCase() } : undefined));
ext.intercept('context_prepare', (ev) => ({ messages: [{ index: -1, role: 'system', content: 'notes' }, ...ev.messages] }));
ext.intercept('before_fork', (ev) => ({ cancel: true, reason: 'no fork of ' + ev.target_id }));
ext.intercept('before_session_switch', (ev) => ({ cancel: ev.reason === 'clear', reason: 'keep it' }));
ext.intercept('before_compact', (ev) => ({ cancel: ev.is_automatic, reason: 'not now' }));

ext.run();
