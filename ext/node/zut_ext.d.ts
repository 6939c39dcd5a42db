// Type declarations of zut_ext.mjs, the Node.js SDK for zut extensions.
// Objects from and to the host use the protocol's member names
// (docs/protocol.md): snake_case, as on the wire.

export const VERSION: string;
export const PROTOCOL_VERSION: 2;
export const MAX_LINE: number;

/** Capabilities of the additions beyond protocol v2. */
export const HOST_REQUESTS: 'host_requests';
export const EVENTS2: 'events2';
export const INTERCEPTS2: 'intercepts2';
export const UI2: 'ui2';
export type Capability = 'host_requests' | 'events2' | 'intercepts2' | 'ui2';

export class ZutError extends Error {}
export class CapabilityError extends ZutError {
  method: string;
  capability: string;
  /** true: the host does not offer it; false: the extension did not declare it. */
  host: boolean;
}
export class HostError extends ZutError {
  method: string;
}
export class ClosedError extends ZutError {}
export class CancelledError extends ZutError {}

/** Any JSON object; frames keep members this declaration does not list. */
export type JSONObject = { [member: string]: any };

export interface Session {
  id: string;
  parent_id?: string;
  path?: string;
  cwd?: string;
  fork_point?: number;
}

/** hello_ack. */
export interface HostInfo extends JSONObject {
  protocol_version: number;
  zut_version: string;
  provider: string;
  model: string;
  cwd: string;
  extension_dir: string;
  data_dir: string;
  session?: Session;
  capabilities?: string[];
}

/** An event frame: `event` names it; only that event's members are present. */
export interface Event extends JSONObject {
  event: string;
  session?: Session;
  state?: any;
}

/** An event_intercept frame. */
export interface Intercept extends JSONObject {
  id: string;
  event: string;
}

/** The answer members of event_intercept_response. */
export interface InterceptAnswer extends JSONObject {
  block?: boolean;
  reason?: string;
  modified_args?: JSONObject;
  context?: string;
  replace_text?: string;
  action?: 'handled' | 'transform';
  text?: string;
  system_prompt?: string;
  inject_text?: string;
  content?: string;
  is_error?: boolean;
  messages?: ContextMessage[];
  cancel?: boolean;
}

export interface ContextMessage {
  index: number;
  role: 'user' | 'assistant' | 'system' | string;
  content: string;
}

export interface Panel {
  id: string;
  title?: string;
  lines?: string[];
  footer?: string;
}

export interface PanelKey {
  panel_id: string;
  key: string;
  text?: string;
}

/** The members of command_response. */
export interface CommandResponse extends JSONObject {
  action?: 'prompt' | 'insert' | 'display' | 'open_panel' | 'noop';
  prompt?: string;
  insert?: string;
  display?: string;
  open_panel?: Panel;
  error?: string;
}

export interface ContentBlock {
  type: 'text' | 'image';
  text?: string;
  mime_type?: string;
  data?: string;
}

/** The members of tool_result. details: undefined keeps the saved state, null clears it. */
export interface ToolResult extends JSONObject {
  content?: ContentBlock[];
  is_error?: boolean;
  details?: any;
  activate_tools?: string[];
}

export interface EditorAction {
  action: 'passthrough' | 'consumed' | 'remap' | 'submit';
  key?: string;
  text?: string;
}

type Maybe<T> = T | Promise<T>;

export class Call {
  readonly id: string;
  readonly name: string;
  /** Aborted when zut abandons the call, at shutdown, and when the connection ends. */
  readonly signal: AbortSignal;
  readonly cancelled: boolean;
  /** Shows text as the call's progress line (ui2). */
  progress(text: string): void;
}

export interface RequestOptions {
  signal?: AbortSignal;
  onChunk?: (text: string) => void;
}

export interface ToolRenderer {
  display_name?: string;
  border_color?: string;
  body_markdown?: boolean;
  header?: (args: JSONObject, width: number) => Maybe<string>;
  body?: (result: string, isError: boolean, width: number) => Maybe<string>;
}

export function prompt(text: string): CommandResponse;
export function insert(text: string): CommandResponse;
export function display(text: string): CommandResponse;
export function noop(): CommandResponse;
export function error(message: string): CommandResponse;
export function panelResponse(p: Panel): CommandResponse;
export function textResult(text: string, members?: ToolResult): ToolResult;
export function errorResult(text: string, members?: ToolResult): ToolResult;
export function imageResult(mimeType: string, data: Uint8Array | string, members?: ToolResult): ToolResult;

/** A key name no key has (see canonicalKey). */
export class KeyNameError extends Error {
  /** The name as given. */
  key: string;
  /** What is wrong and what to write instead. */
  reason: string;
}
/** The form in which zut names the key called name (docs/protocol.md, "Key
 * names"): 'Alt + Ctrl + P' is 'ctrl+alt+p', 'shift+a' is 'A'. Throws
 * KeyNameError for a name no key has. */
export function canonicalKey(name: string): string;

export class Extension {
  constructor(name: string, version?: string);
  readonly name: string;
  readonly version: string;
  /** hello_ack, once run() has it; null before. */
  host: HostInfo | null;

  use(...capabilities: Capability[]): void;
  offers(capability: Capability | string): boolean;
  onHello(fn: (host: HostInfo) => void): void;
  command(name: string, description: string, handler: (args: string) => Maybe<CommandResponse | string | void>,
    opts?: { complete?: (prefix: string) => Maybe<string[]> }): void;
  tool(name: string, description: string, schema: JSONObject | null,
    handler: (args: any, call: Call) => Maybe<ToolResult | string | void>,
    opts?: { deferred?: boolean; interactive?: boolean }): void;
  on(event: string, handler: (ev: Event) => Maybe<void>): void;
  onCustom(name: string, handler: (ev: Event) => Maybe<void>): void;
  intercept(event: string, handler: (ev: Intercept) => Maybe<InterceptAnswer | void>): void;
  onPanelKey(fn: (key: PanelKey) => Maybe<void>): void;
  onPanelClose(fn: (panelId: string) => Maybe<void>): void;
  shortcut(key: string, description: string, handler: () => Maybe<void>): void;
  toolRenderer(toolName: string, r: ToolRenderer): void;
  messageRenderer(name: string, handler: (content: string, width: number) => Maybe<string[]>): void;
  registerOption(name: string, description?: string, def?: string): void;

  notify(message: string, level?: 'info' | 'success' | 'warn' | 'error'): void;
  clearNotes(): void;
  alert(reason?: string, kind?: 'bell'): void;
  setStatus(key: string, text: string, level?: string, priority?: number): void;
  clearStatus(key: string): void;
  setWidget(id: string, lines: string[], opts?: { title?: string; position?: 'above_input' | 'below_input' | 'right_bar';
    priority?: number; markdown?: boolean; border_color?: string; no_border?: boolean }): void;
  clearWidget(id: string): void;
  submit(text: string): void;
  submitSlash(text: string): void;
  openPanel(p: Panel): void;
  renderPanel(p: Panel): void;
  closePanel(panelId: string): void;
  print(text: string, style?: 'plain' | 'info' | 'error' | 'block',
    members?: { markdown?: boolean; border_color?: string; subtitle?: string; renderer?: string }): void;
  setHeader(text: string, members?: { markdown?: boolean; border_color?: string }): void;
  clearHeader(): void;
  setFooter(text: string, members?: { markdown?: boolean; border_color?: string }): void;
  clearFooter(): void;
  setUIVisibility(hide: { hide_startup_message?: boolean; hide_status_bar?: boolean; hide_separator?: boolean; hide_input_hint?: boolean }): void;
  setEditor(keys: string[], handler: (key: { id: string; key: string; text: string }) => Maybe<EditorAction | void>): void;
  resetEditor(): void;
  log(message: string): void;

  request(method: string, params?: JSONObject, opts?: RequestOptions): Promise<JSONObject>;
  select(params: { message: string; options: string[]; title?: string; default?: string; timeout_ms?: number; border_color?: string },
    opts?: RequestOptions): Promise<{ value: string; index: number; cancelled: boolean }>;
  confirm(params: { message: string; title?: string; default?: boolean; timeout_ms?: number; border_color?: string },
    opts?: RequestOptions): Promise<{ value: boolean; cancelled: boolean }>;
  input(params: { message: string; title?: string; placeholder?: string; default?: string; timeout_ms?: number; border_color?: string },
    opts?: RequestOptions): Promise<{ value: string; cancelled: boolean }>;
  overlay(params: { text: string; title?: string; markdown?: boolean; actions?: string[]; width?: number; max_height?: number;
    anchor?: 'center' | 'top' | 'bottom'; border_color?: string; timeout_ms?: number },
    opts?: RequestOptions): Promise<{ action: string; index: number; cancelled: boolean }>;
  messages(opts?: RequestOptions): Promise<JSONObject[]>;
  sessionInfo(opts?: RequestOptions): Promise<{ id: string; path?: string; cwd: string; title?: string; branch?: Session }>;
  contextStats(opts?: RequestOptions): Promise<{ estimated_tokens: number; context_limit: number; usage_percent: number; message_count: number }>;
  appendEntry(entryType: string, data: any, opts?: RequestOptions): Promise<string>;
  entries(entryType?: string, opts?: RequestOptions): Promise<{ id: string; entry_type: string; data: any; time: string }[]>;
  model(opts?: RequestOptions): Promise<JSONObject>;
  setModel(model: string, opts?: RequestOptions): Promise<JSONObject>;
  models(opts?: RequestOptions): Promise<JSONObject[]>;
  tools(opts?: RequestOptions): Promise<{ name: string; description?: string; source: string; extension?: string; enabled: boolean }[]>;
  setActiveTools(names: string[] | null, opts?: RequestOptions): Promise<void>;
  complete(params: { prompt: string; model?: string; system?: string; max_tokens?: number },
    opts?: RequestOptions): Promise<{ text: string; input_tokens: number; output_tokens: number; model: string }>;
  option(name: string, opts?: RequestOptions): Promise<string>;
  setOption(name: string, value: string, opts?: RequestOptions): Promise<{ name: string; value: string; source: string }>;
  send(text: string, mode?: 'queue' | 'steer' | 'interrupt', opts?: RequestOptions): Promise<void>;
  exit(opts?: RequestOptions): Promise<void>;
  reload(opts?: RequestOptions): Promise<void>;
  emitCustom(name: string, data?: any, opts?: RequestOptions): Promise<void>;
  setEditorText(text: string, opts?: RequestOptions): Promise<void>;
  suspendTUI<T>(fn: () => Maybe<T>, opts?: RequestOptions): Promise<T>;

  /** Serves until shutdown or the end of stdin, then exits the process
   * (status 1 after a protocol error); with {exit: false} resolves with
   * the error message ('' when none). */
  run(opts?: { exit?: boolean }): Promise<string>;
}
