#!/usr/bin/env node
// clock: a zut extension in plain Node.js, without any SDK. It registers
// two slash commands and deliberately never sends "ready": zut treats it
// as ready once it has been quiet for 250 ms after hello_ack, and
// `zut ext doctor` reports it as auto-ready.
'use strict';

const readline = require('readline');

function emit(frame, then) {
  process.stdout.write(JSON.stringify(frame) + '\n', then);
}

function pad(n) {
  return String(n).padStart(2, '0');
}

function clock(args) {
  const now = new Date();
  if (args.trim().toLowerCase() === 'utc') {
    return `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())} UTC`;
  }
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
  return `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())} ${zone}`;
}

emit({ type: 'hello', protocol_version: 2, name: 'clock', version: '1.0.0', capabilities: ['commands'] });

const input = readline.createInterface({ input: process.stdin });
input.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    process.stderr.write(`clock: skipped a line that is not JSON: ${err.message}\n`);
    return;
  }
  switch (msg.type) {
    case 'hello_ack':
      if (msg.protocol_version !== 2) {
        process.stderr.write(`clock: zut speaks protocol_version ${msg.protocol_version}, this script speaks 2\n`);
        process.exit(1);
      }
      emit({ type: 'register_command', name: 'clock', description: 'show the time (/clock utc for UTC)' });
      emit({ type: 'register_command', name: 'date', description: "show today's date" });
      // No ready frame, on purpose (see the comment at the top).
      break;
    case 'command_invoked':
      if (msg.name === 'clock') {
        emit({ type: 'command_response', id: msg.id, action: 'display', display: clock(msg.args || '') });
      } else if (msg.name === 'date') {
        emit({ type: 'command_response', id: msg.id, action: 'display', display: new Date().toDateString() });
      } else {
        emit({ type: 'command_response', id: msg.id, action: 'noop', error: `clock has no command /${msg.name}` });
      }
      break;
    case 'shutdown':
      emit({ type: 'shutdown_ack' }, () => process.exit(0));
      break;
    default:
      // Frames this script does not use are ignored, as the protocol asks.
      break;
  }
});
input.on('close', () => process.exit(0));
