#!/usr/bin/env bash
# The secured broker: formats its storage on first start with every principal's SCRAM-SHA-512
# credentials in the metadata (so the broker itself can authenticate as admin before any client
# exists), then runs Kafka with /secure/server.properties (init.sh).
set -euo pipefail
umask 077
until [[ -f /secure/.ready ]]; do echo "broker: waiting for secure-init"; sleep 1; done
if [[ ! -f /tmp/kafka-data/meta.properties ]]; then
  # the storage tool reads "@file" as more arguments, one per line: passwords stay off the command line
  args=$(mktemp)
  trap 'rm -f "$args"' EXIT
  for file in /secure/password.*; do
    printf -- '--add-scram\nSCRAM-SHA-512=[name=%s,password=%s]\n' "${file#/secure/password.}" "$(cat "$file")" >> "$args"
  done
  /opt/kafka/bin/kafka-storage.sh format --cluster-id "$(/opt/kafka/bin/kafka-storage.sh random-uuid)" \
    --config /secure/server.properties "@$args" > /dev/null
  rm -f "$args"
fi
exec /opt/kafka/bin/kafka-server-start.sh /secure/server.properties
