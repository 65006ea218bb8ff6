package io.kvroute.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.platform.config.ConfigException;
import io.kvroute.router.routing.TtftModel;
import io.kvroute.platform.config.Settings;
import io.kvroute.router.RouterApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RouterConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> m = new HashMap<>();
        m.put("bootstrap.servers", "127.0.0.1:9092");
        m.put("schema.registry.url", "mock://config-test");
        m.put("router.regions", "us-east,eu-west");
        return m;
    }

    private static RouterConfig with(String key, String value) {
        Map<String, String> m = minimal();
        m.put(key, value);
        return RouterConfig.from(Settings.of(m));
    }

    @Test
    void shouldApplyDefaults() {
        RouterConfig config = RouterConfig.from(Settings.of(minimal()));
        assertThat(config.policy()).isEqualTo("kvroute");
        assertThat(config.applicationId()).isEqualTo("kvroute-router");
        assertThat(config.topics().requests().name()).isEqualTo("kvroute.requests");
        assertThat(config.modelContextTokens()).containsEntry("llama-3.1-8b", 131_072);
        assertThat(config.routing().telemetryTtlMs()).isEqualTo(2_000);
        assertThat(config.metricsPort()).isEqualTo(-1);
        assertThat(config.parkedRetryMs()).isEqualTo(50);
        assertThat(config.stateDir().toString()).contains("kvroute-router-kvroute-router");
        Properties streams = config.streamsProperties();
        assertThat(streams.getProperty("processing.guarantee")).isEqualTo("exactly_once_v2");
        assertThat(streams.getProperty("commit.interval.ms")).as("Streams' own: the backlog interval").isEqualTo("500");
        assertThat(config.commitIntervalMs()).as("asked for while caught up").isEqualTo(50);
        assertThat(config.commitBacklogAfterMs()).as("behind once requests waited this long").isEqualTo(2_000);
        assertThat(streams.getProperty("application.id")).isEqualTo("kvroute-router");
        assertThat(streams.getProperty("max.task.idle.ms")).as("no waiting to interleave independent inputs").isEqualTo("-1");
    }

    @Test
    void shouldCommitAtTheCaughtUpIntervalWhenTheBacklogOneIsNotLonger() {
        Map<String, String> m = minimal();
        m.put(RouterConfig.COMMIT_INTERVAL_MS, "800");
        assertThat(RouterConfig.from(Settings.of(m)).streamsProperties().getProperty("commit.interval.ms"))
                .as("a caught-up interval past the backlog default, set alone").isEqualTo("800");
        m.put(RouterConfig.COMMIT_INTERVAL_MS, "200");
        m.put(RouterConfig.COMMIT_INTERVAL_BACKLOG_MS, "100");
        assertThat(RouterConfig.from(Settings.of(m)).commitIntervalBacklogMs()).isEqualTo(200);
        m.put(RouterConfig.COMMIT_INTERVAL_BACKLOG_MS, "1000");
        assertThat(RouterConfig.from(Settings.of(m)).streamsProperties().getProperty("commit.interval.ms")).isEqualTo("1000");
    }

    @Test
    void shouldRememberAcceptedRequestIdsForADayUnlessToldOtherwise() {
        assertThat(RouterConfig.from(Settings.of(minimal())).dedupRetentionMs()).isEqualTo(86_400_000L);
        assertThat(with(RouterConfig.DEDUP_RETENTION_MS, "3600000").dedupRetentionMs()).isEqualTo(3_600_000L);
        for (String bad : new String[] {"59999", "2592000001", "a day"}) {
            assertThatThrownBy(() -> with(RouterConfig.DEDUP_RETENTION_MS, bad)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("router.dedup.retention.ms").hasMessageContaining(bad);
        }
    }

    @Test
    void shouldSelectEveryBaselineAndSeedTheRandomisedOnes() {
        for (String name : io.kvroute.router.routing.Policies.names()) {
            assertThat(with("router.policy", name).policy()).isEqualTo(name);
        }
        assertThat(RouterConfig.from(Settings.of(minimal())).routing().randomSeed())
                .isEqualTo(io.kvroute.router.routing.RoutingSettings.DEFAULT_RANDOM_SEED);
        assertThat(with("router.random.seed", "-7").routing().randomSeed()).isEqualTo(-7L);
        assertThat(with("router.kv.event.index.capacity", "5000").routing().kvEventIndexCapacity()).isEqualTo(5_000);
        assertThatThrownBy(() -> with("router.kv.event.index.capacity", "0"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("router.kv.event.index.capacity");
        assertThatThrownBy(() -> with("router.policy", "random"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("router.policy");
    }

    @Test
    void shouldStartFromTheEngineProfileItIsToldOrFromNone() {
        assertThat(RouterConfig.from(Settings.of(minimal())).routing().engineModel()).as("learns from nothing").isNull();
        assertThat(with(RouterConfig.ENGINE_MODEL, "none").routing().engineModel()).isNull();
        assertThat(with(RouterConfig.ENGINE_MODEL, "llama-8b-h100").routing().engineModel()).isEqualTo(TtftModel.LLAMA_8B_H100);
        assertThat(with(RouterConfig.ENGINE_MODEL, "llama-70b-4xh100").routing().engineModel()).isEqualTo(TtftModel.LLAMA_70B_4XH100);
        assertThatThrownBy(() -> with(RouterConfig.ENGINE_MODEL, "llama-405b"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("router.engine.model").hasMessageContaining("llama-405b")
                .hasMessageContaining("llama-70b-4xh100").hasMessageContaining("none");
    }

    @Test
    void shouldPassKafkaSettingsThrough() {
        Properties streams = with("kafka.num.stream.threads", "2").streamsProperties();
        assertThat(streams.getProperty("num.stream.threads")).isEqualTo("2");
    }

    @Test
    void shouldRefuseToWeakenExactlyOnce() {
        assertThatThrownBy(() -> with("kafka.processing.guarantee", "at_least_once"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("kafka.processing.guarantee").hasMessageContaining("at_least_once");
    }

    @Test
    void shouldNameTheKeyAndValueOfABadSetting() {
        assertThatThrownBy(() -> with("router.policy", "random"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("router.policy").hasMessageContaining("random");
        assertThatThrownBy(() -> with("router.telemetry.ttl.ms", "soon"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("router.telemetry.ttl.ms").hasMessageContaining("soon");
        assertThatThrownBy(() -> with("router.models", "llama:big"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("router.models").hasMessageContaining("llama:big");
        assertThatThrownBy(() -> with("router.regions", "US East"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("router.regions").hasMessageContaining("US East");
        assertThatThrownBy(() -> with("router.metrics.port", "70000"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("router.metrics.port").hasMessageContaining("70000");
        assertThatThrownBy(() -> with("schema.registry.url", "localhost:8081"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("schema.registry.url");
    }

    @Test
    void shouldRequireBootstrapServersAndRegions() {
        Map<String, String> m = minimal();
        m.remove("bootstrap.servers");
        assertThatThrownBy(() -> RouterConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("bootstrap.servers");
        Map<String, String> n = minimal();
        n.remove("router.regions");
        assertThatThrownBy(() -> RouterConfig.from(Settings.of(n))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("router.regions");
    }

    @Test
    void shouldLayerFileEnvironmentAndArguments(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("router.properties");
        Files.writeString(file, "bootstrap.servers=file:9092\nschema.registry.url=mock://x\nrouter.regions=us-east\nrouter.policy=least-queue\n");
        Settings settings = RouterApp.settingsFrom(new String[] {"--config", file.toString(), "router.policy=round-robin"},
                Map.of("KVROUTE_BOOTSTRAP_SERVERS", "env:9092", "KVROUTE_ROUTER_TELEMETRY_TTL_MS", "700"));
        RouterConfig config = RouterConfig.from(settings);
        assertThat(config.bootstrapServers()).isEqualTo("env:9092");
        assertThat(config.policy()).isEqualTo("round-robin");
        assertThat(config.routing().telemetryTtlMs()).isEqualTo(700);
    }

    @Test
    void shouldHandTheRegistryCredentialsToTheSerdeAndTheErrorHandlers() {
        Settings settings = RouterApp.settingsFrom(new String[0], Map.of("KVROUTE_BOOTSTRAP_SERVERS", "b:9092",
                "KVROUTE_SCHEMA_REGISTRY_URL", "https://registry:8081", "KVROUTE_ROUTER_REGIONS", "us-east",
                "KVROUTE_BEARER_AUTH_CREDENTIALS_SOURCE", "STATIC_TOKEN", "KVROUTE_BEARER_AUTH_TOKEN", "tok-router-1"));

        RouterConfig config = RouterConfig.from(settings);

        assertThat(config.serdeConfig()).containsEntry("bearer.auth.credentials.source", "STATIC_TOKEN")
                .containsEntry("bearer.auth.token", "tok-router-1").containsEntry("schema.registry.url", "https://registry:8081");
        assertThat(config.streamsProperties()).containsEntry("bearer.auth.token", "tok-router-1");
        assertThatThrownBy(() -> with("basic.auth.credentials.source", "USER_INFO"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("basic.auth.user.info");
    }

    @Test
    void shouldHaveNoAdmissionStepRegionCatalogOrTenantRegionsByDefault() {
        RouterConfig config = RouterConfig.from(Settings.of(minimal()));
        assertThat(config.quotasEnabled()).isFalse();
        assertThat(config.defaultQuota().unlimited()).isTrue();
        assertThat(config.tenantQuotas()).isEmpty();
        assertThat(config.regionCatalog().profile("us-east")).isEmpty();
        assertThat(config.regionCatalog().interactiveTargetMs()).isEqualTo(2_000);
        assertThat(config.regionCatalog().batchTargetMs()).isEqualTo(30_000);
        assertThat(config.residency().tenantRegions("acme")).isEmpty();
    }

    @Test
    void shouldReadRegionProfilesTenantRegionsAndQuotas() {
        Map<String, String> m = minimal();
        m.put(RouterConfig.REGIONS, "us-east,eu-west,provider");
        m.put(RouterConfig.REGION_PROFILES, "us-east@5:0.30,provider@60:0.10:shared");
        m.put(RouterConfig.TTFT_TARGET_INTERACTIVE_MS, "1500");
        m.put(RouterConfig.TENANT_REGIONS, "eu-bank=eu-west");
        m.put(RouterConfig.TENANT_QUOTAS, "acme=600/1000000,bulk=-/5000000/reject");
        RouterConfig config = RouterConfig.from(Settings.of(m));
        assertThat(config.regionCatalog().delayMs("us-east")).isEqualTo(5);
        assertThat(config.regionCatalog().sharedRateLimit("provider")).isTrue();
        assertThat(config.regionCatalog().interactiveTargetMs()).isEqualTo(1_500);
        assertThat(config.residency().tenantRegions("eu-bank")).containsExactly("eu-west");
        assertThat(config.tenantQuotas().get("acme").requestsPerMinute()).isEqualTo(600);
        assertThat(config.quotasEnabled()).isTrue();
        assertThat(with(RouterConfig.QUOTA_DEFAULT, "60/-/reject").quotasEnabled()).isTrue();
    }

    @Test
    void shouldRejectMalformedAdmissionAndPlacementSettingsNamingKeyAndValue() {
        Map<String, String> bad = Map.of(
                RouterConfig.REGION_PROFILES, "us-east:5",
                RouterConfig.TTFT_TARGET_INTERACTIVE_MS, "0",
                RouterConfig.TTFT_TARGET_BATCH_MS, "soon",
                RouterConfig.TENANT_REGIONS, "eu-bank",
                RouterConfig.TENANT_QUOTAS, "acme=600",
                RouterConfig.QUOTA_DEFAULT, "10/20/later");
        bad.forEach((key, value) -> assertThatThrownBy(() -> with(key, value))
                .as(key).isInstanceOf(ConfigException.class).hasMessageContaining(key).hasMessageContaining(value));
        assertThatThrownBy(() -> with(RouterConfig.REGION_PROFILES, "us-east@5,us-east@6"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("appears twice");
        assertThatThrownBy(() -> with(RouterConfig.REGION_PROFILES, "us-east@5,eu-wset@40"))
                .isInstanceOf(ConfigException.class).hasMessageContaining(RouterConfig.REGION_PROFILES).hasMessageContaining("'eu-wset'");
        assertThatThrownBy(() -> with(RouterConfig.TENANT_REGIONS, "eu-bank=eu-west|eu-central"))
                .isInstanceOf(ConfigException.class).hasMessageContaining(RouterConfig.TENANT_REGIONS).hasMessageContaining("'eu-central'");
        assertThat(with(RouterConfig.QUOTA_DEFAULT, " ").quotasEnabled()).isFalse();
    }
}
