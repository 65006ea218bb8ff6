#!/usr/bin/env bash
# The secured broker: formats its storage on first start with every principal's SCRAM-SHA-512
# credentials in the metadata (so the broker itself can authenticate as admin before any client
# exists), then runs Kafka with /secure/server.properties (init.sh).
set -euo pipefail
until [[ -f /secure/.ready && -f /public/.ready ]]; do echo "broker: waiting for secure-init"; sleep 1; done
if [[ ! -f /tmp/kafka-data/meta.properties ]]; then
  # the storage tool reads "@file" as more arguments: the passwords stay off its command line
  /opt/kafka/bin/kafka-storage.sh format --cluster-id "$(/opt/kafka/bin/kafka-storage.sh random-uuid)" \
    --config /secure/server.properties @/secure/scram.args > /dev/null
fi
exec /opt/kafka/bin/kafka-server-start.sh /secure/server.properties
