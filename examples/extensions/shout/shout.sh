#!/bin/sh
# shout: a zut extension in POSIX shell and jq. /shout TEXT shows TEXT in
# capital letters (ASCII only: jq's ascii_upcase).
set -u

emit() {
	printf '%s\n' "$1"
}

emit '{"type":"hello","protocol_version":2,"name":"shout","version":"1.0.0","capabilities":["commands"]}'

while IFS= read -r line; do
	# Answer hello_ack at once, before starting any jq: zut takes an
	# extension that stays quiet for 250 ms after hello_ack as ready, and
	# on a busy machine two jq runs can take that long. zut only answers a
	# hello whose protocol_version it speaks, so the check is a safeguard.
	case $line in
	*'"type":"hello_ack"'* | *'"type": "hello_ack"'*)
		case $line in
		*'"protocol_version":2,'* | *'"protocol_version": 2,'* | *'"protocol_version":2}'* | *'"protocol_version": 2}'*) ;;
		*)
			echo "shout: zut does not speak protocol_version 2, as this script does" >&2
			exit 1
			;;
		esac
		emit '{"type":"register_command","name":"shout","description":"show text in capital letters"}'
		emit '{"type":"ready"}'
		continue
		;;
	esac
	if ! type=$(printf '%s\n' "$line" | jq -r '.type // empty' 2>/dev/null); then
		echo "shout: skipped a line that is not JSON" >&2
		continue
	fi
	case $type in
	command_invoked)
		printf '%s\n' "$line" | jq -c '
			{type: "command_response", id: .id} +
			if (.args // "") == "" then
				{action: "noop", error: "/shout needs some text, for example: /shout hello"}
			else
				{action: "display", display: (.args | ascii_upcase)}
			end'
		;;
	shutdown)
		emit '{"type":"shutdown_ack"}'
		exit 0
		;;
	esac
done
