#!/usr/bin/env node
// context-notes: keeps project notes in <project>/.zut/notes.md and sends
// them with every model request without storing them in the session (the
// context_prepare interception). /note adds a line and tells the other
// extensions with the custom event "notes-changed"; /notes opens a panel
// to review and delete notes; the custom event "plan-mode" (from the
// plan-mode example) adds a reminder to the context. On the Node SDK:
// zut_ext.mjs beside it is a copy of ext/node/zut_ext.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { Extension, INTERCEPTS2, HOST_REQUESTS, ZutError, display, error, panelResponse } from './zut_ext.mjs';

const PANEL = 'notes';
const ext = new Extension('context-notes', '1.1.0');
ext.use(HOST_REQUESTS);
let notesFile = '';
let planMode = false;
let cursor = 0;

function readNotes() {
  try {
    return fs.readFileSync(notesFile, 'utf8').split('\n').filter((l) => l.trim() !== '');
  } catch {
    return [];
  }
}

function writeNotes(lines) {
  fs.mkdirSync(path.dirname(notesFile), { recursive: true });
  fs.writeFileSync(notesFile, lines.map((l) => l + '\n').join(''));
}

ext.onHello((host) => {
  notesFile = path.join(host.cwd, '.zut', 'notes.md');
  if (!ext.offers(INTERCEPTS2)) {
    ext.log('this zut does not offer context_prepare (capability intercepts2); the notes are kept but not sent to the model');
  }
});

// The notes become a system message of each request, for that request
// only; undefined keeps the context as it is.
ext.intercept('context_prepare', (ev) => {
  const parts = [];
  const notes = readNotes();
  if (notes.length > 0) parts.push('Project notes (from .zut/notes.md):\n' + notes.join('\n'));
  if (planMode) parts.push('Plan mode is on: propose changes, do not make them.');
  if (parts.length === 0) return undefined;
  return { messages: [{ index: -1, role: 'system', content: parts.join('\n\n') }, ...ev.messages] };
});

ext.onCustom('plan-mode', (ev) => {
  planMode = Boolean(ev.data && ev.data.active);
});

ext.command('note', 'add a project note sent with every request (/note <text>)', async (args) => {
  const text = args.trim();
  if (!text) {
    const notes = readNotes();
    return display(notes.length > 0 ? notes.join('\n') : 'no notes yet: /note <text> adds one');
  }
  const notes = [...readNotes(), '- ' + text];
  try {
    writeNotes(notes);
  } catch (err) {
    return error(`note: ${err.message}; check that ${path.dirname(notesFile)} is writable`);
  }
  let told = '';
  try {
    await ext.emitCustom('notes-changed', { count: notes.length });
  } catch (err) {
    if (!(err instanceof ZutError)) throw err;
    told = ' (the other extensions were not told: ' + err.message + ')';
  }
  let sent = '';
  if (!ext.offers(INTERCEPTS2)) sent = '; this zut cannot send notes to the model (no context_prepare): update zut';
  return display(`noted (${notes.length} in .zut/notes.md)${sent}${told}`);
});

function notesPanel(notes) {
  const lines = notes.length > 0 ? notes.map((n, i) => `${i === cursor ? '›' : ' '} ${n}`) : ['(no notes)'];
  return { id: PANEL, title: 'Project notes', lines, footer: '↑/↓ move · d delete · enter edit in the editor · esc close' };
}

ext.command('notes', 'review and delete the project notes', () => {
  cursor = 0;
  return panelResponse(notesPanel(readNotes()));
});

ext.onPanelKey(async (k) => {
  if (k.panel_id !== PANEL) return;
  const notes = readNotes();
  if (k.key === 'up' || k.key === 'down') {
    cursor = Math.max(0, Math.min(notes.length - 1, cursor + (k.key === 'up' ? -1 : 1)));
  } else if ((k.key === 'rune' && k.text === 'd') || k.key === 'delete') {
    if (notes.length === 0) return;
    notes.splice(cursor, 1);
    writeNotes(notes);
    cursor = Math.min(cursor, Math.max(0, notes.length - 1));
  } else if (k.key === 'enter' && notes.length > 0) {
    ext.closePanel(PANEL);
    try {
      await ext.setEditorText('/note ' + notes[cursor].replace(/^- /, ''));
    } catch (err) {
      ext.notify('could not fill the editor: ' + err.message, 'warn');
    }
    return;
  } else {
    return;
  }
  ext.renderPanel(notesPanel(notes));
});

ext.run();
