package io.kvroute.ingress.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.prompt.PrefixSalt;
import io.kvroute.platform.config.ConfigException;
import io.kvroute.schemas.v1.CandidateScore;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.RoutingDecision;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.TypeConversionException;

class CliPartsTest {

    @Test
    void shouldConvertDurations() {
        DurationConverter converter = new DurationConverter();

        assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(converter.convert("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(converter.convert("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(converter.convert("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(converter.convert("PT90S")).isEqualTo(Duration.ofSeconds(90));
        assertThatThrownBy(() -> converter.convert("soon")).isInstanceOf(TypeConversionException.class).hasMessageContaining("soon");
    }

    @Test
    void shouldDrawTheProgressBarInPlaceAtMostEveryInterval() {
        StringWriter text = new StringWriter();
        AtomicLong now = new AtomicLong();
        ProgressBar bar = new ProgressBar(new PrintWriter(text), true, "submit", 10, now::get, 100);

        bar.update(1);
        bar.update(2);
        now.addAndGet(100);
        bar.update(5);
        bar.finish(10);

        assertThat(text.toString()).isEqualTo("\rsubmit [###---------------------------] 1/10 10%"
                + "\rsubmit [###############---------------] 5/10 50%"
                + "\rsubmit [##############################] 10/10 100%" + System.lineSeparator());
    }

    @Test
    void shouldPrintNothingWhenTheProgressBarIsDisabled() {
        StringWriter text = new StringWriter();
        ProgressBar bar = new ProgressBar(new PrintWriter(text), false, "collect", -1, () -> 0, 0);

        bar.update(3);
        bar.finish(3);

        assertThat(text.toString()).isEmpty();
        assertThat(new ProgressBar(new PrintWriter(text), true, "collect", -1, () -> 0, 0).render(7)).isEqualTo("collect 7");
    }

    @Test
    void shouldLayerDefaultsFileEnvironmentAndOptions(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("kvroute.properties");
        Files.writeString(file, "schema.registry.url=http://file:1\nkvroute.topic.prefix=fromfile\ningress.tenant=filetenant\nkafka.linger.ms=7\n");
        ConnectionOptions options = new ConnectionOptions(Map.of("KVROUTE_INGRESS_TENANT", "envtenant"));
        new CommandLine(options).parseArgs("--config", file.toString(), "--topic-prefix", "cli");

        ClientConfig config = options.clientConfig(Map.of());

        assertThat(config.bootstrapServers()).isEqualTo(ConnectionOptions.DEFAULT_BOOTSTRAP_SERVERS);
        assertThat(config.schemaRegistryUrl()).isEqualTo("http://file:1");
        assertThat(config.topics().requests().name()).isEqualTo("cli.requests");
        assertThat(config.tenant()).isEqualTo("envtenant");
        assertThat(config.producerConfig()).containsEntry("linger.ms", "7").containsEntry("acks", "all").containsEntry("enable.idempotence", "true");
        assertThat(config.readerConfig("x")).containsEntry("isolation.level", "read_committed").doesNotContainKey("group.id");
    }

    @Test
    void shouldTakeThePrefixSaltFromTheEnvironmentOrAFileItNames(@TempDir Path dir) throws Exception {
        String secret = "salt-from-the-environment-0001";
        Path file = Files.writeString(dir.resolve("salt"), secret + "\n");

        ClientConfig fromEnv = new ConnectionOptions(Map.of("KVROUTE_INGRESS_PREFIX_SALT", secret)).clientConfig(Map.of());
        ClientConfig fromFile = new ConnectionOptions(Map.of("KVROUTE_INGRESS_PREFIX_SALT_FILE", file.toString())).clientConfig(Map.of());

        assertThat(fromEnv.prefixSalt()).contains(PrefixSalt.ofSecret(secret));
        assertThat(fromFile.prefixSalt()).contains(PrefixSalt.ofSecret(secret));
        assertThat(fromEnv.toString()).doesNotContain(secret);
    }

    @Test
    void shouldHandTheRegistryCredentialsFromFileAndEnvironmentToTheSerdeWithoutShowingThem(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("kvroute.properties");
        Files.writeString(file, "schema.registry.url=https://registry.example:8081\nbasic.auth.credentials.source=USER_INFO\n"
                + "schema.registry.ssl.truststore.type=PKCS12\n");
        ConnectionOptions options = new ConnectionOptions(Map.of("KVROUTE_BASIC_AUTH_USER_INFO", "kvroute:env-pw-8"));
        new CommandLine(options).parseArgs("--config", file.toString());

        ClientConfig config = options.clientConfig(Map.of());

        assertThat(config.serdeConfig())
                .containsEntry("schema.registry.url", "https://registry.example:8081")
                .containsEntry("basic.auth.credentials.source", "USER_INFO")
                .containsEntry("basic.auth.user.info", "kvroute:env-pw-8");
        assertThat(config.toString()).contains("basic.auth.user.info").doesNotContain("env-pw-8");
        assertThatThrownBy(() -> new ConnectionOptions(Map.of("KVROUTE_BEARER_AUTH_TOKEN", "tok-env-9")).clientConfig(Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("bearer.auth.credentials.source").hasMessageNotContaining("tok-env-9");
    }

    @Test
    void shouldNameTheKeyAndValueOfABadSetting() {
        assertThatThrownBy(() -> ClientConfig.of(Map.of("bootstrap.servers", "b:1", "schema.registry.url", "http://r",
                ClientConfig.PREFIX_BLOCK_TOKENS, "zero")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(ClientConfig.PREFIX_BLOCK_TOKENS).hasMessageContaining("zero");
        assertThatThrownBy(() -> ClientConfig.of(Map.of("bootstrap.servers", "b:1", "schema.registry.url", "http://r",
                ClientConfig.TOPIC_PREFIX, "bad prefix")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("bad prefix");
    }

    @Test
    void shouldFormatDecisionsWithoutPromptText() throws Exception {
        RoutingDecision decision = RoutingDecision.newBuilder()
                .setRequestId("r1").setTenant("t").setModel("llama-3.1-8b").setOutcome(DecisionOutcome.DISPATCHED)
                .setRegion("eu-west").setPartition(3).setWorkerId("w-3").setPolicy("kv-aware").setAttempt(1)
                .setPromptBlocks(10).setMatchedPrefixBlocks(4).setScore(0.81234).setCandidatesConsidered(6)
                .setComponentNames(List.of("prefix"))
                .setTopCandidates(List.of(new CandidateScore("w-3", "eu-west", 3, 0.81234, Map.of(), List.of(0.5f))))
                .setReason("best prefix match").setDecidedAtMs(5).build();
        DecisionFormatter formatter = new DecisionFormatter();

        assertThat(formatter.text(decision)).isEqualTo(
                "r1 DISPATCHED attempt=1 region=eu-west partition=3 worker=w-3 policy=kv-aware matched=4/10 score=0.8123 candidates=6 reason=\"best prefix match\"");
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(formatter.json(decision));
        assertThat(json.get("matched_prefix_blocks").asInt()).isEqualTo(4);
        assertThat(json.get("top_candidates").get(0).get("components").get("prefix").asDouble()).isEqualTo(0.5);
    }
}
