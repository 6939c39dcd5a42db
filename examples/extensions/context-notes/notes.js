#!/usr/bin/env node
// context-notes: keeps project notes in <project>/.zut/notes.md and sends
// them with every model request without storing them in the session
// (the context_prepare interception). /note adds a line and tells the
// other extensions with the custom event "notes-changed"; the custom
// event "plan-mode" (from the plan-mode example) adds a reminder to the
// context. Plain Node, no SDK.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

let notesFile = '';
let planMode = false;
let seq = 0;
const waiting = new Map(); // host request id -> resolve

function emit(frame) {
  process.stdout.write(JSON.stringify(frame) + '\n');
}

// request sends a host_request and resolves with its result.
function request(method, params) {
  const id = 'notes-' + (++seq);
  return new Promise((resolve, reject) => {
    waiting.set(id, (resp) => (resp.error ? reject(new Error(resp.error)) : resolve(resp.result)));
    emit({ type: 'host_request', id, method, params });
  });
}

function readNotes() {
  try {
    return fs.readFileSync(notesFile, 'utf8').trim();
  } catch {
    return '';
  }
}

// contextPrepare answers a context_prepare interception: the notes become
// a system message for this request only; null keeps the context as is.
function contextPrepare(messages) {
  const parts = [];
  const notes = readNotes();
  if (notes) parts.push('Project notes (from .zut/notes.md):\n' + notes);
  if (planMode) parts.push('Plan mode is on: propose changes, do not make them.');
  if (parts.length === 0) return null;
  return [{ index: -1, role: 'system', content: parts.join('\n\n') }, ...messages];
}

async function note(msg) {
  const text = msg.args.trim();
  if (!text) {
    const notes = readNotes();
    emit({ type: 'command_response', id: msg.id, action: 'display', display: notes || 'no notes yet: /note <text> adds one' });
    return;
  }
  try {
    fs.mkdirSync(path.dirname(notesFile), { recursive: true });
    fs.appendFileSync(notesFile, '- ' + text + '\n');
    const count = readNotes().split('\n').length;
    await request('app.notify_custom', { name: 'notes-changed', data: { count } });
    emit({ type: 'command_response', id: msg.id, action: 'display', display: `noted (${count} in .zut/notes.md)` });
  } catch (err) {
    emit({ type: 'command_response', id: msg.id, error: 'note: ' + err.message });
  }
}

emit({
  type: 'hello', protocol_version: 2, name: 'context-notes', version: '1.0.0',
  capabilities: ['commands', 'host_requests', 'events2', 'intercepts2'],
});

const input = readline.createInterface({ input: process.stdin });
input.on('line', (line) => {
  const msg = JSON.parse(line);
  switch (msg.type) {
    case 'hello_ack':
      notesFile = path.join(msg.cwd, '.zut', 'notes.md');
      emit({ type: 'register_command', name: 'note', description: 'add a project note sent with every request (/note <text>)' });
      emit({ type: 'subscribe', events: ['custom'], intercept: ['context_prepare'] });
      emit({ type: 'ready' });
      break;
    case 'host_response': {
      const done = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (done) done(msg);
      break;
    }
    case 'command_invoked':
      note(msg);
      break;
    case 'event':
      if (msg.event === 'custom' && msg.name === 'plan-mode') {
        planMode = Boolean(msg.data && msg.data.active);
      }
      break;
    case 'event_intercept': {
      const resp = { type: 'event_intercept_response', id: msg.id };
      if (msg.event === 'context_prepare') {
        const messages = contextPrepare(msg.messages);
        if (messages) resp.messages = messages;
      }
      emit(resp);
      break;
    }
    case 'shutdown':
      emit({ type: 'shutdown_ack' });
      process.exit(0);
  }
});
input.on('close', () => process.exit(0));
