#!/usr/bin/env node
import { readFile } from "node:fs/promises";
import type { Config } from './config'
import * as path from "path"

const re = /function fake\(\) \{/g, half = 10 / 2 / 1;
const tpl = `class Nope { ${ (() => { return "}"; })() } function nope() {}`;
let counter = 0

export interface Options<T> extends Base {
  readonly name: string;
  callback?(err: Error | null, value?: T): void
  nested: { a: number; b: string }
  [key: string]: unknown
}

export type Handler = (req: Request) => Promise<Response>;

export enum Color { Red = "red", Green = 'gr}een', Blue }

/* class Commented { method() {} } */
@Component({ selector: "app-root", template: `<div>{{ x }}</div>` })
export default class App extends Base implements OnInit {
  @Input() title: string = 'x';
  #secret = 42
  static count = 0;
  private readonly items: Map<string, number> = new Map()

  constructor(private http: HttpClient) {
    super();
  }

  get value(): number { return this.#secret }
  set value(v) { this.#secret = v }
  async *stream(): AsyncGenerator<string> { yield "}" }
  handle = (e: Event) => {
    if (e) { return }
  }
  ['computed' + 1]() {}
  static {
    App.count = 1;
  }
}

export async function main(argv: string[]): Promise<number> {
  const inner = () => {};
  return 0;
}

export const helper = async (x: number) => x * 2
const obj = { method() { return 1 }, key: function () {} }

function* gen() { yield 1 }
declare module "foo" {
  export function bar(): void;
}
namespace NS.Inner {
  export const y = 1;
}
describe("suite", () => {
  it("works", () => {})
})
