#!/usr/bin/env node
// clock: slash commands on the Node SDK. zut_ext.mjs beside it is a copy
// of the SDK (ext/node/zut_ext.mjs in the zut repository).
import { Extension, display } from './zut_ext.mjs';

const pad = (n) => String(n).padStart(2, '0');

function clock(args) {
  const now = new Date();
  if (args.trim().toLowerCase() === 'utc') {
    return `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())} UTC`;
  }
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
  return `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())} ${zone}`;
}

const ext = new Extension('clock', '1.0.0');
ext.command('clock', 'show the time (/clock utc for UTC)', (args) => display(clock(args)));
ext.command('date', "show today's date", () => display(new Date().toDateString()));
ext.run();
