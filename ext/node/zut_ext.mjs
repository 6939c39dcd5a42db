// zut_ext: the Node.js SDK for zut extensions.
//
// An extension is a program that speaks zut's extension protocol v2 (and,
// when it asks for them, zut's additions beyond v2) as JSON lines on its
// stdin and stdout. This module does the handshake, the registrations and
// the dispatch, so that an extension is a few handler functions:
//
//   import { Extension, prompt } from './zut_ext.mjs';
//   const ext = new Extension('hello', '1.0.0');
//   ext.command('hello', 'say hi', () => prompt('Greet me in one short sentence.'));
//   ext.run();
//
// Install: copy this one file (and zut_ext.d.ts for editors) next to your
// program. It needs Node 18 or later and no npm package. Documentation:
// docs/sdk-node.md in the zut repository.
//
// Handlers may be plain or async functions. Commands, tool calls and
// interceptions run concurrently; events and panel keys run one at a time,
// in the order zut sent them, each awaited before the next; and a command,
// tool call or interception starts only after the events that came before
// it were handled. A host request (ext.select, ext.model, ...) returns a
// Promise; the SDK goes on reading while it waits.
//
// A handler that throws (or rejects) produces an error reply (an is_error
// tool result, a command error, an interception that allows the event)
// and a stack trace in the extension's log; the extension keeps running.
//
// Capabilities: registrations declare the capability they need (an added
// event with on(), an added interception, a shortcut, completion ...).
// Methods used at run time that need an addition (select, print,
// call.progress, ...) need it declared with ext.use(HOST_REQUESTS, ...)
// before run(). A method whose capability was not declared, or that the
// host did not offer in hello_ack, throws (or rejects with) a
// CapabilityError at once; it never waits for a timeout.
//
// stdout carries the protocol. run() points process.stdout.write (and so
// console.log) at stderr, so that stray output lands in the extension's
// log. A child process spawned with stdio 'inherit' still gets the real
// stdout: give it 'ignore' or stderr instead.

export const VERSION = '1.0.0';
export const PROTOCOL_VERSION = 2;
export const MAX_LINE = 16 << 20;

export const HOST_REQUESTS = 'host_requests';
export const EVENTS2 = 'events2';
export const INTERCEPTS2 = 'intercepts2';
export const UI2 = 'ui2';
const ADDED = [HOST_REQUESTS, EVENTS2, INTERCEPTS2, UI2];
const V2_CAPS = ['commands', 'tools', 'alerts', 'panels', 'tool_cancel'];
const EVENTS_2 = new Set(['session_shutdown', 'agent_start', 'agent_end', 'tool_execution_start',
  'tool_execution_end', 'tool_result', 'input', 'message_start', 'message_update', 'message_end',
  'model_change', 'custom']);
const V2_INTERCEPTS = ['tool_call', 'turn_start', 'assistant_message'];
const INTERCEPTS_2 = ['input', 'before_agent_start', 'tool_result', 'context_prepare',
  'before_fork', 'before_session_switch', 'before_compact'];
const MAX_EARLY = 256;
const GRACE_MS = 1000;

// ---------------------------------------------------------------- errors

/** The base of the SDK's errors. */
export class ZutError extends Error {
  constructor(message) {
    super(message);
    this.name = this.constructor.name;
  }
}

/** A method needs a capability the extension did not declare (host false:
 * call ext.use before run) or the host did not offer (host true). */
export class CapabilityError extends ZutError {
  constructor(method, capability, host) {
    super(host
      ? `${method}: the host does not offer the capability "${capability}"; use a zut that does`
      : `${method}: needs the capability "${capability}"; call ext.use('${capability}') before run()`);
    this.method = method;
    this.capability = capability;
    this.host = host;
  }
}

/** The host answered a request with an error, a message for a person. */
export class HostError extends ZutError {
  constructor(method, message) {
    super(message);
    this.method = method;
  }
}

/** The connection to the host has ended. */
export class ClosedError extends ZutError {
  constructor(message = 'extension connection closed') {
    super(message);
  }
}

/** The tool call waiting for the request was cancelled. */
export class CancelledError extends ZutError {
  constructor(message = 'the tool call was cancelled') {
    super(message);
  }
}

// ---------------------------------------------------------------- values

/** A command response that submits text as a user prompt. */
export const prompt = (text) => ({ action: 'prompt', prompt: text });
/** A command response that puts text into the editor. */
export const insert = (text) => ({ action: 'insert', insert: text });
/** A command response that shows text as a note (no model call). */
export const display = (text) => ({ action: 'display', display: text });
/** A command response that changes nothing. */
export const noop = () => ({ action: 'noop' });
/** A command response that reports a failure; say what to do. */
export const error = (message) => ({ action: 'noop', error: message });
/** A command response that opens the panel p ({id, title, lines, footer}). */
export const panelResponse = (p) => ({ action: 'open_panel', open_panel: p });
/** A tool result with one text block; members (details, activate_tools) are added. */
export const textResult = (text, members = {}) => ({ content: [{ type: 'text', text }], ...members });
/** A failed tool result; the model sees text as the error. */
export const errorResult = (text, members = {}) => textResult(text, { ...members, is_error: true });
/** A tool result with one image; data is a Buffer/Uint8Array or base64 text. */
export const imageResult = (mimeType, data, members = {}) => ({
  content: [{ type: 'image', mime_type: mimeType, data: typeof data === 'string' ? data : Buffer.from(data).toString('base64') }],
  ...members,
});

// ------------------------------------------------------------ key names

// The one form of key names (docs/protocol.md, "Key names"): the same
// rules as zut's proto.CanonicalKey and the Python SDK; all three check
// the table proto/testdata/keys.txt.
const KEY_MODIFIERS = ['ctrl', 'alt', 'shift', 'super', 'hyper', 'meta'];
const MODIFIER_ALIASES = { control: 'ctrl', option: 'alt', opt: 'alt', cmd: 'super', command: 'super' };
const KEY_NAMES = {
  enter: 'enter', return: 'enter', tab: 'tab', backspace: 'backspace',
  esc: 'esc', escape: 'esc', up: 'up', down: 'down', left: 'left', right: 'right',
  home: 'home', end: 'end', pageup: 'pageup', pgup: 'pageup',
  pagedown: 'pagedown', pgdn: 'pagedown', insert: 'insert', ins: 'insert',
  delete: 'delete', del: 'delete', begin: 'begin',
};
for (let i = 1; i <= 12; i++) KEY_NAMES[`f${i}`] = `f${i}`;
const SHIFT = 2;

/** A key name no key has: key is the name as given, reason says what is
 * wrong and what to write instead. */
export class KeyNameError extends Error {
  constructor(key, reason) {
    super(`key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'KeyNameError';
    this.key = key;
    this.reason = reason;
  }
}

/** Returns the form in which zut names the key called name: 'Alt + Ctrl
 * + P' is 'ctrl+alt+p', 'shift+a' is 'A', 'escape' is 'esc'. Throws
 * KeyNameError for a name no key has. shortcut() and setEditor() use it;
 * compare the key of an editor key with its result. */
export function canonicalKey(name) {
  const [key, reason] = keyCanon(name);
  if (reason) throw new KeyNameError(name, reason);
  return key;
}

/** [canonical name, ''] or ['', the reason s names no key]. */
function keyCanon(s) {
  if (typeof s !== 'string') return ['', 'a key name is a string'];
  s = s.replace(/[ \t\n\v\f\r]/g, '');
  if (s === '') return ['', 'no key name; name a key such as "ctrl+alt+p" (the space bar is "space")'];
  for (const c of s) {
    const o = c.codePointAt(0);
    if (o === 0xfffd || (o >= 0xd800 && o <= 0xdfff)) return ['', 'not a valid character'];
    if (o < 0x20 || (o >= 0x7f && o <= 0x9f)) {
      return ['', 'a control character is not a key; name the key instead ("enter", "tab", "ctrl+a")'];
    }
  }
  let name = s;
  let mods = '';
  let hasMods = false;
  if (s === '+') {
    name = '+';
  } else if (s.endsWith('++')) {
    [name, mods, hasMods] = ['+', s.slice(0, -2), true];
  } else if (s.endsWith('+')) {
    return ['', 'ends with "+"; name the key after the last "+" ("ctrl++" is Ctrl with +)'];
  } else if (s.includes('+')) {
    const i = s.lastIndexOf('+');
    [name, mods, hasMods] = [s.slice(i + 1), s.slice(0, i), true];
  }
  const on = KEY_MODIFIERS.map(() => false);
  if (hasMods) {
    for (const m of mods.split('+')) {
      if (m === '') return ['', 'an empty modifier: "+" joins a modifier (ctrl, alt, shift, super, hyper, meta) to what follows'];
      const i = modifierIndex(m);
      if (i < 0 && isKeyName(m)) return ['', `"${m}" is a key, not a modifier; the key comes last, as in "ctrl+${asciiLower(m)}"`];
      if (i < 0) return ['', `unknown modifier "${m}"; the modifiers are ctrl, alt, shift, super, hyper and meta`];
      if (on[i]) return ['', `modifier "${KEY_MODIFIERS[i]}" given twice`];
      on[i] = true;
    }
  }
  const lower = asciiLower(name);
  if (modifierIndex(name) >= 0) return ['', `"${name}" is a modifier, not a key; add the key after it, as in "${lower}+tab"`];
  if (Object.hasOwn(KEY_NAMES, lower)) {
    name = KEY_NAMES[lower];
  } else if (lower === 'space') {
    name = 'space';
  } else if (lower === 'rune') {
    return ['', '"rune" is only a panel_key name; name the character itself'];
  } else if ([...name].length === 1) {
    if (on.some((v, i) => v && i !== SHIFT)) {
      name = lowerPartner(name) || name;
    } else if (on[SHIFT]) {
      const up = upperPartner(name);
      if (up) {
        name = up;
      } else if (!lowerPartner(name)) {
        return ['', `Shift with "${name}" is never reported: the terminal sends the character Shift types, so claim that (Shift+1 is "!" on a US keyboard)`];
      }
      on[SHIFT] = false;
    }
  } else {
    return ['', `unknown key name "${name}"; a key is one character, "space", or one of enter, tab, backspace, esc, up, down, left, right, home, end, pageup, pagedown, insert, delete, begin, f1 to f12`];
  }
  return [KEY_MODIFIERS.filter((_, i) => on[i]).map((m) => m + '+').join('') + name, ''];
}

function modifierIndex(m) {
  m = asciiLower(m);
  if (Object.hasOwn(MODIFIER_ALIASES, m)) m = MODIFIER_ALIASES[m];
  return KEY_MODIFIERS.indexOf(m);
}

function isKeyName(s) {
  s = asciiLower(s);
  return Object.hasOwn(KEY_NAMES, s) || s === 'space' || s === 'rune';
}

/** The lower-case letter of the upper-case letter c when the two are a
 * pair both ways (categories Lu and Ll), else ''. */
function lowerPartner(c) {
  const lo = c.toLowerCase();
  return [...lo].length === 1 && /^\p{Lu}$/u.test(c) && /^\p{Ll}$/u.test(lo) && lo.toUpperCase() === c ? lo : '';
}

/** lowerPartner the other way. */
function upperPartner(c) {
  const up = c.toUpperCase();
  return [...up].length === 1 && /^\p{Ll}$/u.test(c) && /^\p{Lu}$/u.test(up) && up.toLowerCase() === c ? up : '';
}

const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** A running tool call: id, name, an AbortSignal that ends when zut
 * abandons the call (tool_cancel), at shutdown or when the connection
 * ends, and progress(text). Pass { signal: call.signal } to host requests
 * made for the call. A result returned after cancellation is dropped. */
export class Call {
  constructor(ext, id, name) {
    this.id = id;
    this.name = name;
    this._ext = ext;
    this._ac = new AbortController();
    this.signal = this._ac.signal;
  }

  get cancelled() {
    return this.signal.aborted;
  }

  /** Shows text as the call's progress line (capability ui2). */
  progress(text) {
    this._ext._sendAdded('progress', UI2, { type: 'tool_progress', id: this.id, text });
  }
}

const describe = (err) => (err instanceof Error ? `${err.name === 'Error' ? '' : err.name + ': '}${err.message}` : String(err));

// ---------------------------------------------------------------- extension

/** One extension: its registrations and handlers and, while run() serves,
 * its connection to zut. name must equal the name in extension.json. */
export class Extension {
  constructor(name, version = '0.0.0') {
    this.name = name;
    this.version = version;
    /** The hello_ack, once run() has it. */
    this.host = null;
    this._caps = new Set();
    this._helloCaps = null;
    this._regs = [];
    this._commands = new Map();
    this._completions = new Map();
    this._tools = new Map();
    this._events = new Map();
    this._intercepts = new Map();
    this._customs = new Map();
    this._onHello = [];
    this._panelKeys = [];
    this._panelCloses = [];
    this._shortcuts = new Map();
    this._editorFn = null;
    this._renderers = new Map();
    this._msgRenderers = new Map();
    this._early = [];
    this._subscribed = new Set();
    this._intercepted = new Set();
    this._calls = new Map();
    this._pending = new Map();
    this._seq = 0;
    this._write = null;
    this._acked = false;
    this._ready = false;
    this._closed = false;
    this._ended = false;
    this._chain = Promise.resolve();
    this._queued = 0; // events queued or running
    this._running = new Set(); // handler promises in flight
  }

  // ------------------------------------------------------------ registration

  /** Declares additions handlers use at run time; call it before run(). */
  use(...capabilities) {
    for (const c of capabilities) this._declare(c);
  }

  /** Reports whether the host offered capability in hello_ack. */
  offers(capability) {
    return Boolean(this.host && Array.isArray(this.host.capabilities) && this.host.capabilities.includes(capability));
  }

  /** Adds fn(host) to run after hello_ack and before ready. */
  onHello(fn) {
    this._onHello.push(fn);
  }

  /** Registers /name. handler(args) returns a response (prompt(...), ...),
   * a string (shown as a note) or undefined (noop), or a Promise of one.
   * opts.complete(prefix) returns completions (declares ui2). */
  command(name, description, handler, opts = {}) {
    const key = name.toLowerCase();
    const again = this._commands.has(key);
    this._commands.set(key, { name, fn: handler });
    if (opts.complete) {
      this._declare(UI2);
      this._completions.set(key, opts.complete);
    }
    if (!again) {
      const f = { type: 'register_command', name };
      if (description) f.description = description;
      if (opts.complete) f.complete = true;
      this._register(f);
    }
  }

  /** Registers a tool. schema is the JSON Schema of the arguments;
   * handler(args, call) returns a string, a tool result (textResult(...))
   * or undefined, or a Promise of one. opts: deferred, interactive. */
  tool(name, description, schema, handler, opts = {}) {
    const again = this._tools.has(name);
    this._tools.set(name, handler);
    if (!again) {
      const f = { type: 'register_tool', name };
      if (description) f.description = description;
      if (schema) f.schema = schema;
      if (opts.deferred) f.deferred = true;
      if (opts.interactive) f.interactive = true;
      this._register(f);
    }
  }

  /** Subscribes handler(ev) to the event named event; ev is the event frame
   * (ev.session, ev.state, ev.step, ev.tool_name, ...). An event added
   * beyond v2 declares events2. */
  on(event, handler) {
    if (EVENTS_2.has(event)) this._declare(EVENTS2);
    if (!this._events.has(event)) this._events.set(event, []);
    this._events.get(event).push(handler);
    this._subscribe(event, false);
  }

  /** Adds handler(ev) for custom events named name ('' for all) from other
   * extensions: ev.name, ev.data, ev.from. Declares events2. */
  onCustom(name, handler) {
    this._declare(EVENTS2);
    if (!this._customs.has(name)) this._customs.set(name, []);
    this._customs.get(name).push(handler);
    this._subscribe('custom', false);
  }

  /** Adds an interceptor handler(ev) of event: it gets the event_intercept
   * frame and returns undefined (allow, change nothing) or an object of
   * event_intercept_response members (block, reason, modified_args,
   * context, replace_text, action, text, system_prompt, inject_text,
   * content, is_error, messages, cancel), or a Promise of one. Several run
   * in the order added; a rewrite is what the next one sees; block, cancel
   * or handled ends the chain. One added beyond v2 declares intercepts2. */
  intercept(event, handler) {
    if (!V2_INTERCEPTS.includes(event)) this._declare(INTERCEPTS2);
    if (!this._intercepts.has(event)) this._intercepts.set(event, []);
    this._intercepts.get(event).push(handler);
    this._subscribe(event, true);
  }

  /** Adds fn(key) for keys pressed in the extension's panel: panel_id, key, text. */
  onPanelKey(fn) {
    this._panelKeys.push(fn);
  }

  /** Adds fn(panelId), run when the user closed the panel or another took its place. */
  onPanelClose(fn) {
    this._panelCloses.push(fn);
  }

  /** Claims the editor key (such as 'ctrl+alt+p', in any spelling
   * canonicalKey() accepts); handler() runs each time it is pressed.
   * Declares ui2. A name no key has is logged, and zut refuses it with a
   * note in the chat. */
  shortcut(key, description, handler) {
    if (typeof key !== 'string') throw new TypeError(`shortcut key must be a string, not ${typeof key}`);
    this._declare(UI2);
    const [canon, reason] = keyCanon(key);
    if (reason) {
      this.log(`shortcut: ${new KeyNameError(key, reason).message}; zut will refuse it`);
      const f = { type: 'register_shortcut', key };
      if (description) f.description = description;
      this._register(f);
      return;
    }
    key = canon;
    const again = this._shortcuts.has(key);
    this._shortcuts.set(key, handler);
    if (!again) {
      const f = { type: 'register_shortcut', key };
      if (description) f.description = description;
      this._register(f);
    }
  }

  /** Changes how calls of toolName are shown. r.header(args, width) returns
   * the header line, r.body(result, isError, width) the body ('' keeps the
   * default); r.display_name, r.border_color, r.body_markdown. Declares ui2. */
  toolRenderer(toolName, r = {}) {
    this._declare(UI2);
    const again = this._renderers.has(toolName);
    this._renderers.set(toolName, r);
    if (!again) {
      const f = { type: 'register_tool_renderer', tool_name: toolName };
      if (r.display_name) f.display_name = r.display_name;
      if (r.border_color) f.border_color = r.border_color;
      if (r.body_markdown) f.body_markdown = true;
      if (r.header) f.render_header = true;
      if (r.body) f.render_body = true;
      this._register(f);
    }
  }

  /** Registers the renderer name for print(text, {renderer: name}) notes:
   * handler(content, width) returns the lines. Declares ui2. */
  messageRenderer(name, handler) {
    this._declare(UI2);
    const again = this._msgRenderers.has(name);
    this._msgRenderers.set(name, handler);
    if (!again) this._register({ type: 'register_message_renderer', name });
  }

  /** Declares an option ($ZUT_OPT_<NAME>, options.<name> in config.json);
   * read it with option(name). Declares host_requests. */
  registerOption(name, description = '', def = '') {
    this._declare(HOST_REQUESTS);
    const f = { type: 'register_option', name };
    if (description) f.description = description;
    if (def) f.default = def;
    this._register(f);
  }

  _declare(cap) {
    this._caps.add(cap);
    if (this._helloCaps && !this._helloCaps.has(cap)) {
      this.log(`capability "${cap}" is used after the hello was sent; declare it with ext.use before run()`);
    }
  }

  _register(frame) {
    this._regs.push(frame);
    if (this._ready) this._writeQuiet(frame);
  }

  _subscribe(event, intercept) {
    if (!this._ready) return;
    const done = intercept ? this._intercepted : this._subscribed;
    if (done.has(event)) return;
    done.add(event);
    this._writeQuiet(intercept ? { type: 'subscribe', intercept: [event] } : { type: 'subscribe', events: [event] });
  }

  // ------------------------------------------------------------ one-way frames

  /** Shows a one-shot note; level is info, success, warn or error. */
  notify(message, level = 'info') {
    this._send({ type: 'notify', level, message });
  }

  /** Removes this extension's notes. */
  clearNotes() {
    this._send({ type: 'clear_notes' });
  }

  /** Asks for a terminal bell; reason is metadata, never shown. */
  alert(reason = '', kind = 'bell') {
    const f = { type: 'alert', kind };
    if (reason) f.reason = reason;
    this._send(f);
  }

  /** Sets the status item key ('' text removes it); a priority needs ui2. */
  setStatus(key, text, level = 'info', priority = 0) {
    const f = { type: 'status', key, level, text };
    if (priority) {
      this._needs('setStatus priority', UI2);
      f.priority = priority;
    }
    this._send(f);
  }

  /** Removes the status item key. */
  clearStatus(key) {
    this._send({ type: 'status', key, text: '' });
  }

  /** Sets the widget id. opts: title, position (above_input, below_input or
   * right_bar, for any extension); the style members (priority, markdown,
   * border_color, no_border) need ui2. */
  setWidget(id, lines, opts = {}) {
    const { title, position = 'above_input', ...style } = opts;
    const f = { type: 'widget', id, position, lines: [...lines] };
    if (title) f.title = title;
    if (Object.keys(style).length > 0) {
      this._needs('setWidget style', UI2);
      Object.assign(f, style);
    }
    this._send(f);
  }

  /** Removes the widget id. */
  clearWidget(id) {
    this._send({ type: 'widget_clear', id });
  }

  /** Queues text as a user prompt (interactive mode). */
  submit(text) {
    this._send({ type: 'submit', text });
  }

  /** Runs '/name args' as if the user typed it. */
  submitSlash(text) {
    this._send({ type: 'submit_slash', text });
  }

  /** Opens the panel p ({id, title, lines, footer}) without a command. */
  openPanel(p) {
    this._send({ type: 'open_panel', panel: p });
  }

  /** Redraws the open panel p.id. */
  renderPanel(p) {
    const f = { type: 'panel_render', panel_id: p.id };
    for (const k of ['title', 'lines', 'footer']) if (p[k] !== undefined) f[k] = p[k];
    this._send(f);
  }

  /** Closes the panel panelId. */
  closePanel(panelId) {
    this._send({ type: 'panel_close', panel_id: panelId });
  }

  /** Adds a transcript note, never sent to the model (ui2). style: plain,
   * info, error, block; members: markdown, border_color, subtitle, renderer. */
  print(text, style = 'plain', members = {}) {
    this._sendAdded('print', UI2, { ...members, type: 'print', text, style });
  }

  /** Shows the extension's header (ui2); members: markdown, border_color. */
  setHeader(text, members = {}) {
    this._sendAdded('setHeader', UI2, { ...members, type: 'header', text });
  }

  /** Removes the header (ui2). */
  clearHeader() {
    this._sendAdded('clearHeader', UI2, { type: 'header_clear' });
  }

  /** Shows the extension's footer (ui2). */
  setFooter(text, members = {}) {
    this._sendAdded('setFooter', UI2, { ...members, type: 'footer', text });
  }

  /** Removes the footer (ui2). */
  clearFooter() {
    this._sendAdded('clearFooter', UI2, { type: 'footer_clear' });
  }

  /** Replaces what the extension asks to hide (ui2): hide_startup_message,
   * hide_status_bar, hide_separator, hide_input_hint. */
  setUIVisibility(hide = {}) {
    this._sendAdded('setUIVisibility', UI2, { ...hide, type: 'ui_visibility' });
  }

  /** Asks for the editor keys (ui2): handler(key) gets key.key and key.text
   * and returns quickly (zut waits 200 ms) {action: 'passthrough' |
   * 'consumed'}, {action: 'remap', key} or {action: 'submit', text};
   * undefined passes through. Keys may be spelled in any way
   * canonicalKey() accepts; key.key is the canonical name. */
  setEditor(keys, handler) {
    this._needs('setEditor', UI2);
    const canon = [...keys].map((k) => {
      const [c, reason] = keyCanon(k);
      if (!reason) return c;
      this.log(`setEditor: ${new KeyNameError(k, reason).message}; zut will refuse it`);
      return k;
    });
    this._editorFn = handler;
    this._send({ type: 'set_editor', keys: canon });
  }

  /** Gives every key back to the editor (ui2). */
  resetEditor() {
    this._needs('resetEditor', UI2);
    this._editorFn = null;
    this._send({ type: 'reset_editor' });
  }

  /** Writes one line to the extension's log (stderr). */
  log(message) {
    const line = `${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} ${this.name}: ${String(message).replace(/\n+$/, '')}\n`;
    try {
      process.stderr.write(line);
    } catch {
      // nowhere to log
    }
  }

  // ------------------------------------------------------------ host requests

  /** Sends the host request method with params and resolves with the
   * result. opts.signal (an AbortSignal, such as call.signal) abandons the
   * wait; opts.onChunk(text) gets streamed text. Rejects with
   * CapabilityError, HostError, CancelledError or ClosedError. */
  request(method, params = {}, opts = {}) {
    try {
      this._needs(method, HOST_REQUESTS);
    } catch (err) {
      return Promise.reject(err);
    }
    if (!this._ready) {
      return Promise.reject(this._ended
        ? new ClosedError(`${method}: extension connection closed`)
        : new ZutError(`${method}: the handshake with the host has not finished; call it from a handler, after run() started`));
    }
    const { signal, onChunk } = opts;
    if (signal && signal.aborted) return Promise.reject(new CancelledError(`${method}: the tool call was cancelled`));
    const id = 'h' + ++this._seq;
    return new Promise((resolve, reject) => {
      const abort = () => {
        this._pending.delete(id);
        reject(new CancelledError(`${method}: the tool call was cancelled`));
      };
      const done = () => signal && signal.removeEventListener('abort', abort);
      this._pending.set(id, {
        method,
        onChunk,
        resolve: (v) => { done(); resolve(v); },
        reject: (e) => { done(); reject(e); },
      });
      if (signal) signal.addEventListener('abort', abort, { once: true });
      try {
        this._writeFrame({ type: 'host_request', id, method, params: params || {} });
      } catch (err) {
        this._pending.delete(id);
        done();
        reject(err);
      }
    });
  }

  /** Asks the user to choose: params message, options, title, default, timeout_ms. */
  select(params, opts) { return this.request('ui.select', params, opts); }
  /** Asks a yes/no question: params message, title, default, timeout_ms. */
  confirm(params, opts) { return this.request('ui.confirm', params, opts); }
  /** Asks for a line of text: params message, title, placeholder, default, timeout_ms. */
  input(params, opts) { return this.request('ui.input', params, opts); }
  /** Shows a modal dialog: params text, title, markdown, actions, width, max_height, anchor, border_color, timeout_ms. */
  overlay(params, opts) { return this.request('ui.overlay', params, opts); }
  /** The messages of the current branch, as sent to the model. */
  async messages(opts) { return (await this.request('session.messages', {}, opts)).messages || []; }
  /** The open session: id, path, cwd, title, branch. */
  sessionInfo(opts) { return this.request('session.info', {}, opts); }
  /** estimated_tokens, context_limit, usage_percent, message_count. */
  contextStats(opts) { return this.request('session.context_stats', {}, opts); }
  /** Saves data on the current branch as a custom entry; resolves with its id. */
  async appendEntry(entryType, data, opts) { return (await this.request('session.append_entry', { entry_type: entryType, data }, opts)).id; }
  /** The extension's custom entries (of entryType) on the branch, oldest first. */
  async entries(entryType = '', opts) { return (await this.request('session.entries', entryType ? { entry_type: entryType } : {}, opts)).entries || []; }
  /** The current model: model ('provider/id'), provider, id, context_window, max_output. */
  model(opts) { return this.request('model.get', {}, opts); }
  /** Switches to model ('provider/id'); fails while a prompt runs. */
  setModel(model, opts) { return this.request('model.set', { model }, opts); }
  /** Every model zut knows. */
  async models(opts) { return (await this.request('model.list', {}, opts)).models || []; }
  /** Every tool: name, description, source, extension, enabled. */
  async tools(opts) { return (await this.request('tools.list', {}, opts)).tools || []; }
  /** Offers the model only these tools from the next request on; null offers all again. */
  async setActiveTools(names, opts) { await this.request('tools.set_active', { names: names == null ? null : [...names] }, opts); }
  /** One model call outside the conversation: params prompt, model, system,
   * max_tokens; opts.onChunk(text) gets the text as it streams. */
  complete(params, opts = {}) {
    return this.request('llm.complete', opts.onChunk ? { ...params, stream: true } : params, opts);
  }
  /** The value of the option name (set, environment, config or default). */
  async option(name, opts) { return (await this.request('options.get', { name }, opts)).value || ''; }
  /** Sets the option name for the rest of this run of zut. */
  setOption(name, value, opts) { return this.request('options.set', { name, value }, opts); }
  /** Submits text as a prompt: mode queue, steer or interrupt. */
  async send(text, mode = 'queue', opts) { await this.request('app.send', { text, mode }, opts); }
  /** Asks zut to quit. */
  async exit(opts) { await this.request('app.exit', {}, opts); }
  /** Restarts every extension, this one too. */
  async reload(opts) {
    try {
      await this.request('app.reload_extensions', {}, opts);
    } catch (err) {
      if (!(err instanceof ClosedError)) throw err;
    }
  }
  /** Sends the custom event name with data to the other extensions. */
  async emitCustom(name, data = null, opts) { await this.request('app.notify_custom', { name, data }, opts); }
  /** Replaces the text in the user's editor. */
  async setEditorText(text, opts) { await this.request('editor.set_text', { text }, opts); }
  /** Releases the terminal, awaits fn() (which may use /dev/tty), then takes it back. */
  async suspendTUI(fn, opts) {
    const r = await this.request('tui.suspend', {}, opts);
    try {
      return await fn();
    } finally {
      if (r.suspended) await this.request('tui.resume', {});
    }
  }

  // ------------------------------------------------------------ serving

  /** Serves the extension on stdin and stdout: sends hello, waits for
   * hello_ack, runs the onHello functions, announces the registrations and
   * sends ready, then dispatches until zut sends shutdown (answered with
   * shutdown_ack) or closes stdin. Then, by default, the process exits
   * (status 1 after a protocol error); with {exit: false} the Promise
   * resolves with the error message ('' when none) instead. */
  run(opts = {}) {
    if (this._write) throw new ZutError(`run extension "${this.name}": it is already running`);
    const stdout = process.stdout;
    const raw = stdout.write.bind(stdout);
    this._write = (s) => raw(s);
    process.stdout.write = process.stderr.write.bind(process.stderr);
    const caps = [...V2_CAPS, ...ADDED.filter((c) => this._caps.has(c))];
    this._helloCaps = new Set(caps);
    this._writeFrame({ type: 'hello', protocol_version: PROTOCOL_VERSION, name: this.name, version: this.version, capabilities: caps });
    return new Promise((resolve) => {
      let parts = []; // the pieces of a line still without its newline
      let size = 0;
      let skipping = false; // the line is over MAX_LINE: drop it to its newline
      let finished = false;
      const input = process.stdin;
      const finish = (err) => {
        if (finished) return;
        finished = true;
        input.removeListener('data', onData);
        input.pause();
        this._end().then(() => {
          if (err) this.log(err);
          if (opts.exit === false) {
            resolve(err || '');
            return;
          }
          process.exit(err ? 1 : 0);
        });
      };
      const onData = (chunk) => {
        let start = 0;
        for (;;) {
          const nl = chunk.indexOf(10, start);
          if (nl < 0) break;
          let line = chunk.subarray(start, nl);
          start = nl + 1;
          if (skipping) {
            skipping = false;
            continue;
          }
          if (parts.length > 0) {
            parts.push(line);
            line = Buffer.concat(parts, size + line.length);
            parts = [];
            size = 0;
          }
          const err = this._line(line);
          if (err !== undefined) finish(err);
          if (finished) return;
        }
        if (start < chunk.length && !skipping) {
          const rest = chunk.subarray(start);
          size += rest.length;
          if (size > MAX_LINE) {
            parts = [];
            size = 0;
            skipping = true;
            this.log(`skipped a line from the host longer than ${MAX_LINE} bytes`);
          } else {
            parts.push(rest);
          }
        }
      };
      input.on('data', onData);
      input.on('end', () => finish(this._acked ? '' : `run extension "${this.name}": the host closed stdin before hello_ack`));
      input.on('error', (err) => finish(`run extension "${this.name}": read from the host: ${err.message}`));
    });
  }

  // _line handles one line; it returns undefined to go on, or the reason
  // to stop ('' for a clean stop).
  _line(line) {
    let f;
    try {
      f = JSON.parse(line.toString('utf8'));
    } catch (err) {
      if (line.toString().trim() !== '') this.log(`skipped a line from the host that is not JSON: ${err.message}`);
      return undefined;
    }
    if (f === null || typeof f !== 'object' || Array.isArray(f)) {
      this.log('skipped a line from the host that is not a JSON object');
      return undefined;
    }
    const t = f.type;
    if (t === 'shutdown') {
      this._writeQuiet({ type: 'shutdown_ack' });
      return '';
    }
    if (!this._acked) {
      if (t !== 'hello_ack') {
        this.log(`ignored a ${t} frame that came before hello_ack`);
        return undefined;
      }
      return this._helloAck(f);
    }
    const h = typeof t === 'string' && Object.hasOwn(DISPATCH, t) ? DISPATCH[t] : undefined;
    if (!h) {
      this.log(`ignored a frame of type ${JSON.stringify(t)}`);
      return undefined;
    }
    try {
      h.call(this, f);
    } catch (err) {
      this.log(`could not handle a ${t} frame: ${err && err.stack ? err.stack : err}`);
    }
    return undefined;
  }

  _helloAck(f) {
    if (f.protocol_version !== PROTOCOL_VERSION) {
      return `run extension "${this.name}": the host speaks protocol_version ${JSON.stringify(f.protocol_version)}, this SDK speaks ${PROTOCOL_VERSION}; use a zut and an SDK of the same protocol`;
    }
    this.host = f;
    this._acked = true;
    for (const fn of [...this._onHello]) {
      try {
        fn(f);
      } catch (err) {
        this._logError('onHello function', err);
      }
    }
    for (const r of this._regs) this._writeQuiet(r);
    const events = [...this._events.keys()].sort();
    if (this._customs.size > 0 && !events.includes('custom')) events.push('custom');
    const inter = [...V2_INTERCEPTS, ...INTERCEPTS_2].filter((e) => this._intercepts.has(e));
    for (const e of [...this._intercepts.keys()].sort()) if (!inter.includes(e)) inter.push(e);
    if (events.length + inter.length > 0) {
      const s = { type: 'subscribe' };
      if (events.length) s.events = events;
      if (inter.length) s.intercept = inter;
      for (const e of events) this._subscribed.add(e);
      for (const e of inter) this._intercepted.add(e);
      this._writeQuiet(s);
    }
    this._writeQuiet({ type: 'ready' });
    this._ready = true;
    const early = this._early;
    this._early = [];
    for (const fr of early) this._writeQuiet(fr);
    return undefined;
  }

  async _end() {
    this._closed = true;
    this._ready = false;
    this._ended = true;
    this._early = [];
    for (const call of this._calls.values()) call._ac.abort(new ClosedError());
    this._calls.clear();
    for (const p of this._pending.values()) p.reject(new ClosedError(`${p.method}: extension connection closed`));
    this._pending.clear();
    if (this._running.size === 0 && this._queued === 0) return;
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve(false), GRACE_MS); });
    const settled = Promise.allSettled([...this._running, this._chain]).then(() => true);
    if (!(await Promise.race([settled, late]))) {
      this.log(`handlers still running ${GRACE_MS / 1000} s after the connection ended; they ignore call.signal`);
    }
    clearTimeout(timer);
  }

  // ------------------------------------------------------------ writing

  _writeFrame(frame) {
    if (this._closed) throw new ClosedError();
    const line = JSON.stringify(frame) + '\n';
    try {
      this._write(line);
    } catch (err) {
      this._closed = true;
      throw new ClosedError(`write ${frame.type} frame to the host: ${err.message}`);
    }
    if (frame.type === 'shutdown_ack') this._closed = true;
  }

  _writeQuiet(frame) {
    try {
      this._writeFrame(frame);
    } catch (err) {
      if (!(err instanceof ClosedError)) this.log(`could not encode a ${frame.type} frame: ${err.message}`);
    }
  }

  _send(frame) {
    if (this._ended) throw new ClosedError();
    if (!this._ready) {
      if (this._early.length >= MAX_EARLY) throw new ZutError(`send ${frame.type}: ${MAX_EARLY} frames already wait for the connection to the host`);
      this._early.push(frame);
      return;
    }
    this._writeFrame(frame);
  }

  _sendAdded(method, cap, frame) {
    this._needs(method, cap);
    this._send(frame);
  }

  _needs(method, cap) {
    const declared = (this._helloCaps || this._caps).has(cap);
    if (!declared) throw new CapabilityError(method, cap, false);
    if (this._acked && !this.offers(cap)) throw new CapabilityError(method, cap, true);
  }

  _logError(what, err) {
    this.log(`${what} threw ${describe(err)}${err && err.stack ? '\n' + err.stack : ''}`);
  }

  // ------------------------------------------------------------ dispatch

  // _track runs fn (which may return a Promise) and keeps its promise until
  // it settles, so that _end can wait for it.
  _track(fn) {
    const p = (async () => fn())();
    this._running.add(p);
    p.finally(() => this._running.delete(p)).catch(() => {});
    return p;
  }

  // _serially queues fn after the events before it.
  _serially(fn) {
    this._queued++;
    this._chain = this._chain.then(async () => {
      try {
        await fn();
      } catch (err) {
        this._logError('event handler', err);
      } finally {
        this._queued--;
      }
    });
  }

  // _afterEvents runs fn once the events before it were handled, without
  // holding up later events.
  _afterEvents(fn) {
    if (this._queued === 0) {
      this._track(fn);
      return;
    }
    this._queued++;
    this._chain = this._chain.then(() => {
      this._queued--;
      this._track(fn);
    });
  }

  async _guard(what, fn, ...args) {
    try {
      return { value: await fn(...args) };
    } catch (err) {
      this._logError(what, err);
      return { err };
    }
  }

  _reply(frame) {
    try {
      this._writeFrame(frame);
      return true;
    } catch (err) {
      if (!(err instanceof ClosedError)) this.log(`could not encode a ${frame.type} frame: ${err.message}`);
      return err instanceof ClosedError;
    }
  }

  async _runTool(call, args) {
    const fn = this._tools.get(call.name);
    let res;
    if (!fn) {
      res = errorResult(`extension "${this.name}" has no tool "${call.name}"`);
    } else {
      const { value, err } = await this._guard(`tool "${call.name}"`, fn, args, call);
      res = err !== undefined ? errorResult(`${call.name}: ${describe(err)}`) : value;
    }
    const live = this._calls.delete(call.id);
    if (!live || call.cancelled) return;
    if (res === undefined || res === null) res = { content: [] };
    else if (typeof res === 'string') res = textResult(res);
    else if (typeof res !== 'object' || Array.isArray(res)) {
      res = errorResult(`${call.name}: the handler returned ${typeof res}; return a string or an object such as textResult(...)`);
    }
    const frame = replyFrame('tool_result', call.id, res);
    if (!this._reply(frame)) {
      delete frame.details;
      this.log(`tool "${call.name}": the result is not JSON; sent it without details`);
      if (!this._reply(frame)) this._reply({ ...errorResult(`${call.name}: the result is not JSON`), type: 'tool_result', id: call.id });
    }
  }

  async _runCommand(f) {
    const name = str(f.name);
    const entry = this._commands.get(name.toLowerCase());
    let resp;
    if (!entry) {
      resp = error(`extension "${this.name}" has no command /${name}`);
    } else {
      const { value, err } = await this._guard(`command /${name}`, entry.fn, str(f.args));
      resp = err !== undefined ? error(`/${name}: ${describe(err)}`) : value;
    }
    if (resp === undefined || resp === null) resp = noop();
    else if (typeof resp === 'string') resp = display(resp);
    else if (typeof resp !== 'object' || Array.isArray(resp)) resp = error(`/${name}: the handler returned ${typeof resp}; return a string or an object such as display(...)`);
    const frame = replyFrame('command_response', f.id, resp);
    if (!frame.action) frame.action = 'noop';
    if (!this._reply(frame)) this._reply({ ...error(`/${name}: the response is not JSON`), type: 'command_response', id: f.id });
  }

  async _runIntercept(f) {
    const event = f.event;
    const resp = {};
    const ev = { ...f };
    for (const fn of [...(this._intercepts.get(event) || [])]) {
      const { value: d, err } = await this._guard(`${event} interceptor`, fn, ev);
      if (err !== undefined || !d) continue;
      if (typeof d !== 'object' || Array.isArray(d)) {
        this.log(`${event} interceptor returned ${typeof d}; return undefined or an object`);
        continue;
      }
      if (merge(this, event, ev, resp, d)) break;
    }
    const frame = replyFrame('event_intercept_response', f.id, resp);
    if (!this._reply(frame)) this._reply({ type: 'event_intercept_response', id: f.id });
  }

  async _runEvent(f) {
    const name = f.event;
    for (const fn of [...(this._events.get(name) || [])]) await this._guard(`${name} event handler`, fn, f);
    if (name === 'custom') {
      for (const fn of [...(this._customs.get(f.name) || []), ...(this._customs.get('') || [])]) {
        await this._guard('custom event handler', fn, f);
      }
    }
  }

  // _answer runs fn(...args) and replies with frame(its value, or fallback).
  _answer(what, frame, fn, fallback, ...args) {
    this._track(async () => {
      let out = fallback;
      if (fn) {
        const { value, err } = await this._guard(what, fn, ...args);
        if (err === undefined && value !== undefined && value !== null) out = value;
      }
      this._reply(frame(out));
    });
  }
}

const str = (v) => (typeof v === 'string' ? v : '');

// replyFrame is a reply: type and id first, then the handler's members.
const replyFrame = (type, id, members) => Object.assign({ type, id }, members, { type, id });

// DISPATCH maps the frame types from the host to their handlers (this is
// the Extension).
const DISPATCH = {
  tool_call(f) {
    if (typeof f.id !== 'string') {
      this.log('ignored a tool_call without an id');
      return;
    }
    const call = new Call(this, f.id, str(f.name));
    this._calls.set(f.id, call);
    const args = f.args === undefined || f.args === null ? {} : f.args;
    this._afterEvents(() => this._runTool(call, args));
  },
  tool_cancel(f) {
    const call = this._calls.get(f.id);
    if (!call) return;
    this._calls.delete(f.id);
    call._ac.abort(new CancelledError());
  },
  command_invoked(f) {
    this._afterEvents(() => this._runCommand(f));
  },
  event_intercept(f) {
    this._afterEvents(() => this._runIntercept(f));
  },
  event(f) {
    this._serially(() => this._runEvent(f));
  },
  panel_key(f) {
    this._serially(async () => {
      for (const fn of [...this._panelKeys]) await this._guard('panel key handler', fn, f);
    });
  },
  panel_close(f) {
    this._serially(async () => {
      for (const fn of [...this._panelCloses]) await this._guard('panel close handler', fn, str(f.panel_id));
    });
  },
  host_response(f) {
    const p = this._pending.get(f.id);
    if (!p) {
      this.log(`ignored a host_response for ${JSON.stringify(f.id)}: nothing waits for it`);
      return;
    }
    this._pending.delete(f.id);
    if (f.error) p.reject(new HostError(p.method, String(f.error)));
    else p.resolve(f.result && typeof f.result === 'object' ? f.result : {});
  },
  host_stream(f) {
    const p = this._pending.get(f.id);
    if (p && p.onChunk) {
      try {
        p.onChunk(str(f.text));
      } catch (err) {
        this._logError(`${p.method} chunk callback`, err);
      }
    }
  },
  shortcut(f) {
    const [key, reason] = keyCanon(str(f.key));
    const fn = this._shortcuts.get(reason ? str(f.key) : key);
    if (!fn) {
      this.log(`ignored shortcut ${JSON.stringify(f.key)}: no handler`);
      return;
    }
    this._afterEvents(() => this._guard(`shortcut ${f.key}`, fn));
  },
  command_complete(f) {
    const fn = this._completions.get(str(f.name).toLowerCase());
    this._answer(`completion of /${f.name}`, (items) => ({ type: 'command_completions', id: f.id, items: [...items].map(String) }),
      fn, [], str(f.prefix));
  },
  editor_key(f) {
    this._answer(`editor key ${f.key}`, (a) => replyFrame('editor_key_response', f.id, { action: 'passthrough', ...(typeof a === 'object' ? a : {}) }),
      this._editorFn, {}, f);
  },
  render_tool(f) {
    const r = this._renderers.get(f.tool_name) || {};
    this._track(async () => {
      const out = { type: 'render_tool_response', id: f.id };
      if (r.header) {
        const { value } = await this._guard('tool renderer header', r.header, f.args || {}, f.width || 0);
        if (value) out.header = String(value);
      }
      if (r.body && typeof f.result === 'string') {
        const { value } = await this._guard('tool renderer body', r.body, f.result, Boolean(f.is_error), f.width || 0);
        if (value) out.body = String(value);
      }
      this._reply(out);
    });
  },
  render_message(f) {
    const content = str(f.content);
    this._answer(`message renderer ${f.name}`, (lines) => ({ type: 'render_message_response', id: f.id, lines: [...lines].map(String) }),
      this._msgRenderers.get(f.name), [content], content, f.width || 0);
  },
  hello_ack() {
    this.log('ignored a second hello_ack');
  },
};

const join = (a, b) => {
  b = typeof b === 'string' ? b.trim() : '';
  if (!b) return a;
  return a ? `${a}\n\n${b}` : b;
};

// merge adds one interceptor's answer d to resp, applies its rewrites to ev
// for the next interceptor, and reports whether the chain ends.
function merge(ext, event, ev, resp, d) {
  const clear = () => { for (const k of Object.keys(resp)) delete resp[k]; };
  if (V2_INTERCEPTS.includes(event) && d.block) {
    clear();
    Object.assign(resp, { block: true, reason: str(d.reason) });
    return true;
  }
  switch (event) {
    case 'tool_call':
      if (d.modified_args && typeof d.modified_args === 'object' && !Array.isArray(d.modified_args)) {
        ev.tool_args = resp.modified_args = d.modified_args;
      } else if (d.modified_args !== undefined && d.modified_args !== null) {
        ext.log(`tool_call interceptor: modified_args for ${JSON.stringify(ev.tool_name)} is not an object; ignored`);
      }
      break;
    case 'turn_start': {
      const c = join(resp.context || '', d.context);
      if (c) resp.context = c;
      break;
    }
    case 'assistant_message':
      if (d.replace_text) ev.text = resp.replace_text = d.replace_text;
      break;
    case 'input':
      if (d.action === 'handled') {
        clear();
        resp.action = 'handled';
        return true;
      }
      if (d.action === 'transform' && typeof d.text === 'string') {
        resp.action = 'transform';
        ev.text = resp.text = d.text;
      }
      break;
    case 'before_agent_start':
      for (const k of ['system_prompt', 'inject_text']) {
        const v = join(resp[k] || '', d[k]);
        if (v) resp[k] = v;
      }
      break;
    case 'tool_result':
      for (const k of ['content', 'is_error']) if (d[k] !== undefined && d[k] !== null) ev[k] = resp[k] = d[k];
      break;
    case 'context_prepare':
      if (Array.isArray(d.messages)) ev.messages = resp.messages = d.messages;
      break;
    case 'before_fork':
    case 'before_session_switch':
    case 'before_compact':
      if (d.cancel) {
        clear();
        Object.assign(resp, { cancel: true, reason: str(d.reason) });
        return true;
      }
      break;
    default:
      Object.assign(resp, d);
  }
  return false;
}
