#!/usr/bin/env node
// A tool on the SDK, for the round-trip benchmark.
import { Extension } from './zut_ext.mjs';

const ext = new Extension('bench', '1');
ext.tool('echo', 'echo', null, (args) => args.text || '');
ext.run();
