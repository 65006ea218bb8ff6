package io.kvroute.local.docs;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.worker.config.WorkerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code docs/settings.md}, the settings reference, from the settings' definitions
 * ({@link RouterConfig#DEFINITIONS}, {@link WorkerConfig#DEFINITIONS}, {@link ClientConfig#DEFINITIONS}),
 * so the reference cannot drift from what the processes accept. {@code SettingsReferenceTest} fails
 * when the file in the repository differs from {@link #render()}.
 */
public final class SettingsReference {
    /** The command that rewrites the file; the test's failure message quotes it. */
    public static final String REGENERATE = "mvn -B -q -pl local-stack -am test -Dtest=SettingsReferenceTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dkvroute.settings.write=true";

    private SettingsReference() {
    }

    /** The whole reference, as markdown. */
    public static String render() {
        return """
                # Settings reference

                <!-- Generated from RouterConfig.DEFINITIONS, WorkerConfig.DEFINITIONS and ClientConfig.DEFINITIONS
                     by io.kvroute.local.docs.SettingsReference; do not edit by hand. Regenerate with:
                     %s -->

                Every process reads its settings in layers, each replacing the one before: the defaults below,
                then a properties file (`--config FILE`), then `KVROUTE_*` environment variables (the key in
                capitals with `_` for `.`: `KVROUTE_ROUTER_POLICY` sets `router.policy`), then `key=value`
                arguments. A bad value stops the process at start-up with the key and the value in the message,
                and so does a misspelt `router.*` or `worker.*` key. Ranges are inclusive.

                How the settings fit together, with examples: [operations](operations.md).

                ## Router (`kvroute router`)

                %s
                Passed through:
                - `kafka.*`: Kafka Streams and client settings, prefix removed (`kafka.security.protocol=SSL`).
                  The router owns `application.id`, `bootstrap.servers` and `state.dir` (set `router.application.id`,
                  `bootstrap.servers`, `router.state.dir` instead) and always runs `processing.guarantee=exactly_once_v2`;
                  setting those through `kafka.*` fails at start-up.
                - `schema.registry.*`, `basic.auth.*`, `bearer.auth.*`, `auto.register.schemas` and `kvroute.avro.serde.class`
                  (a `Serde` class to use instead of kvroute's own, for example Confluent's `SpecificAvroSerde`) go to the
                  Avro serde and its registry client; see [security](security.md#schema-registry-credentials).

                ## Worker (`kvroute worker`)

                %s
                Passed through: `kafka.*` to the worker's consumer, producer and admin client, prefix removed; every
                setting to the Avro serde, which reads the registry keys above.
                `kafka.max.poll.records` may be at most %d (the worker's commit metadata must stay within Kafka's limit).

                ## Client (the `ingress` library; `kvroute submit`, `collect`, `decisions`, `cancel`)

                %s
                Passed through: `kafka.*` to the client's producer and consumers, prefix removed, applied before
                kvroute's own: they can tune but cannot turn off `acks=all`, idempotence or `read_committed`. The
                commands' `--bootstrap-servers`, `--registry-url`, `--topic-prefix` and `--tenant` options set the
                keys above; the registry credential and TLS keys go to the Avro serde.
                """.formatted(REGENERATE, RouterConfig.DEFINITIONS.markdownTable(), WorkerConfig.DEFINITIONS.markdownTable(),
                WorkerConfig.MAX_POLL_RECORDS_LIMIT, ClientConfig.DEFINITIONS.markdownTable());
    }

    /** Writes the reference to the path given, by default {@code docs/settings.md} under the working directory. */
    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "docs/settings.md");
        Files.writeString(out, render());
        System.out.println("wrote " + out);
    }
}
