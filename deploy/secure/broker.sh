#!/usr/bin/env bash
# The secured broker: formats its storage on first start with every principal's SCRAM-SHA-512
# credentials in the metadata (so the broker itself can authenticate as admin before any client
# exists), then runs Kafka with /secure/server.properties (init.sh).
set -euo pipefail
until [[ -f /secure/.ready ]]; do echo "broker: waiting for secure-init"; sleep 1; done
if [[ ! -f /tmp/kafka-data/meta.properties ]]; then
  scram=()
  for file in /secure/password.*; do
    user=${file#/secure/password.}
    # kafka-storage takes credentials as arguments only; this runs once, alone in the container
    scram+=(--add-scram "SCRAM-SHA-512=[name=$user,password=$(cat "$file")]")
  done
  /opt/kafka/bin/kafka-storage.sh format --cluster-id "$(/opt/kafka/bin/kafka-storage.sh random-uuid)" \
    --config /secure/server.properties "${scram[@]}" > /dev/null
fi
exec /opt/kafka/bin/kafka-server-start.sh /secure/server.properties
