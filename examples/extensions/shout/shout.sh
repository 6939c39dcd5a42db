#!/bin/sh
# shout: a zut extension in POSIX shell and jq. /shout TEXT shows TEXT in
# capital letters (ASCII only: jq's ascii_upcase).
set -u

emit() {
	printf '%s\n' "$1"
}

emit '{"type":"hello","protocol_version":2,"name":"shout","version":"1.0.0","capabilities":["commands"]}'

while IFS= read -r line; do
	if ! type=$(printf '%s\n' "$line" | jq -r '.type // empty' 2>/dev/null); then
		echo "shout: skipped a line that is not JSON" >&2
		continue
	fi
	case $type in
	hello_ack)
		version=$(printf '%s\n' "$line" | jq -r '.protocol_version')
		if [ "$version" != 2 ]; then
			echo "shout: zut speaks protocol_version $version, this script speaks 2" >&2
			exit 1
		fi
		emit '{"type":"register_command","name":"shout","description":"show text in capital letters"}'
		emit '{"type":"ready"}'
		;;
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
