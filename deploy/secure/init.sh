#!/usr/bin/env bash
# Makes, once, what the secured compose stack needs: a TLS key pair for the broker (host name "kafka"),
# a trust store holding its certificate, a random password for every principal, the broker's
# configuration and each process's client settings. Each role's files go to its own directory (a
# volume of its own in docker-compose.secure.yml, mounted only into that role's containers): a
# worker cannot read the router's password, a tenant's file holds no one else's. keytool reads
# passwords from its environment, never a command line.
set -euo pipefail
umask 077
OUT=${SECURE_DIR:-/out} # the role volumes' parent; another directory to try the script outside Docker
ROLES=(broker registry router worker-us-east worker-eu-west worker-ap-south admin tenants public)
if [[ -f $OUT/broker/.ready ]]; then
  echo "secure-init: $OUT already provisioned"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

KAFKA_UID=1000 # the apache/kafka and cp-schema-registry images run as uid 1000 (appuser); each gets its own volume
USERS=(admin registry router worker-us-east worker-eu-west worker-ap-south acme globex)
secret() { head -c 24 /dev/urandom | base64 | tr -d '/+=' ; }
declare -A PASSWORD
for user in "${USERS[@]}"; do
  PASSWORD[$user]=$(secret)
done

export STOREPASS TRUSTPASS
STOREPASS=$(secret)   # the broker's key store: the broker's only
TRUSTPASS=$(secret)   # the trust store holds a public certificate; its password guards nothing secret
keytool -genkeypair -alias kafka -keyalg EC -groupname secp256r1 -validity 825 \
  -dname "CN=kafka, O=kvroute compose" -ext "SAN=dns:kafka,dns:localhost,ip:127.0.0.1" \
  -keystore broker.p12 -storetype PKCS12 -storepass:env STOREPASS
keytool -exportcert -alias kafka -keystore broker.p12 -storetype PKCS12 -storepass:env STOREPASS -file broker.crt
keytool -importcert -noprompt -alias kafka -file broker.crt -keystore truststore.p12 -storetype PKCS12 \
  -storepass:env TRUSTPASS

scram_jaas() { # user
  printf 'org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";' \
    "$1" "${PASSWORD[$1]}"
}

mkdir -p "${ROLES[@]}"
admin_password=${PASSWORD[admin]}
cat > broker/server.properties <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
controller.listener.names=CONTROLLER
# clients and the broker itself: SCRAM over TLS; the controller listener is loopback only
listeners=SASL_SSL://0.0.0.0:9094,CONTROLLER://127.0.0.1:9093
advertised.listeners=SASL_SSL://kafka:9094
listener.security.protocol.map=SASL_SSL:SASL_SSL,CONTROLLER:SASL_PLAINTEXT
inter.broker.listener.name=SASL_SSL
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=$(scram_jaas admin)
# SCRAM credentials live in the metadata the controller serves, so the controller listener uses PLAIN
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="$admin_password" user_admin="$admin_password";
ssl.keystore.location=/secure/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$STOREPASS
ssl.truststore.location=/public/truststore.p12
ssl.truststore.type=PKCS12
ssl.truststore.password=$TRUSTPASS
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:admin
log.dirs=/tmp/kafka-data
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
group.initial.rebalance.delay.ms=0
add.partitions.to.txn.retry.backoff.max.ms=1000
PROPS
cp broker.p12 broker/
# every principal's credentials, written into the metadata at format (broker.sh): the storage tool reads
# "@file" as more arguments, one per line
for user in "${USERS[@]}"; do
  printf -- '--add-scram\nSCRAM-SHA-512=[name=%s,password=%s]\n' "$user" "${PASSWORD[$user]}"
done > broker/scram.args

client() { # user file: a kvroute process's settings (every Kafka client setting behind the kafka. prefix)
  {
    echo "bootstrap.servers=kafka:9094"
    echo "schema.registry.url=http://schema-registry:8081"
    echo "kvroute.tenant.topics=per-tenant"
    echo "kafka.security.protocol=SASL_SSL"
    echo "kafka.sasl.mechanism=SCRAM-SHA-512"
    echo "kafka.sasl.jaas.config=$(scram_jaas "$1")"
    echo "kafka.ssl.truststore.location=/public/truststore.p12"
    echo "kafka.ssl.truststore.type=PKCS12"
    echo "kafka.ssl.truststore.password=$TRUSTPASS"
  } > "$2"
}
client router router/router.properties
for region in us-east eu-west ap-south; do
  client "worker-$region" "worker-$region/worker-$region.properties"
done
for tenant in acme globex; do
  client "$tenant" "tenants/$tenant.properties"
  echo "ingress.tenant=$tenant" >> "tenants/$tenant.properties"
done
# the admin commands (kvroute topics/acls --command-config) take plain Kafka keys
client admin admin/admin.properties
sed -n 's/^kafka\.//p' admin/admin.properties > admin/admin-client.properties
rm admin/admin.properties
# the schema registry's store connection (cp-schema-registry reads SCHEMA_REGISTRY_KAFKASTORE_*)
cat > registry/registry.env <<ENV
export SCHEMA_REGISTRY_KAFKASTORE_SASL_JAAS_CONFIG='$(scram_jaas registry)'
export SCHEMA_REGISTRY_KAFKASTORE_SSL_TRUSTSTORE_PASSWORD='$TRUSTPASS'
ENV
cp truststore.p12 broker.crt public/
chmod 0644 public/truststore.p12 public/broker.crt

# into the volumes, each role's files owned by who reads them; ready last, so a run cut short starts again
for role in "${ROLES[@]}"; do
  mkdir -p "$OUT/$role"
  rm -rf "${OUT:?}/$role/"* "$OUT/$role/.ready"
  cp -p "$role"/* "$OUT/$role/"
done
if [[ $(id -u) -eq 0 ]]; then
  chown -R "$KAFKA_UID:$KAFKA_UID" "$OUT/broker" "$OUT/registry"
  chmod 0755 "$OUT/public"
fi
for role in "${ROLES[@]}"; do
  touch "$OUT/$role/.ready"
done
echo "secure-init: made the broker's key pair, the trust store and the settings of ${#USERS[@]} principals"
