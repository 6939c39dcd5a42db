'use strict';
const path = require('path');
import defaultThing, { named as alias } from "./thing.js";

const slash = /[/]\/{}/g;           // a regex with a slash in a class
const ratio = total / count / 2;     // division, not a regex
const nested = `outer ${ `inner ${ value } }` } done {`;
let state = { open: true, close() { return '}' } }

/**
 * JSDoc: function fake() {}
 */
function plain(a, b = () => {}) {
  return a + b;
}

async function* lines(stream) {
  for await (const chunk of stream) yield chunk;
}

export const handler = async (event) => {
  const inner = function () { return 1; };
  return { statusCode: 200 };
};

export class Counter extends EventTarget {
  static #instances = 0;
  count = 0
  constructor(start) {
    super();
    this.count = start ?? 0;
  }
  increment() { this.count++ }
  get double() { return this.count * 2 }
  static create() { return new Counter(0) }
}

module.exports = { plain, lines };
export default function () {}
