package io.kvroute.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.platform.config.ConfigException;
import io.kvroute.platform.config.Settings;
import io.kvroute.worker.engine.openai.OpenAiSettings;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerConfigTest {

    private static Map<String, String> required() {
        Map<String, String> m = new HashMap<>();
        m.put(WorkerConfig.BOOTSTRAP_SERVERS, "localhost:9092");
        m.put(WorkerConfig.SCHEMA_REGISTRY_URL, "mock://x");
        m.put(WorkerConfig.WORKER_ID, "w-1");
        m.put(WorkerConfig.REGION, "us-east");
        return m;
    }

    @Test
    void shouldApplyDefaults() {
        WorkerConfig config = WorkerConfig.from(Settings.of(required()));
        assertThat(config.topicPrefix()).isEqualTo("kvroute");
        assertThat(config.models()).containsExactly("llama-3.1-8b");
        assertThat(config.groupId()).isEqualTo("kvroute.worker.us-east");
        assertThat(config.transactionalId()).isEqualTo("kvroute-worker-w-1");
        assertThat(config.kvBlocks()).isEqualTo(26_000);
        assertThat(config.hostKvBlocks()).isZero();
        assertThat(config.engineLimits().hostKvBlocks()).isZero();
        assertThat(config.maxRunning()).isEqualTo(256);
        assertThat(config.maxBatchedTokens()).isEqualTo(8192);
        assertThat(config.chunkTokens()).isEqualTo(16);
        assertThat(config.telemetryIntervalMs()).isEqualTo(250);
        assertThat(config.maxWaiting()).isEqualTo(512);
        assertThat(config.metricsPort()).isEqualTo(-1);
        assertThat(config.cancellationLookbackMs()).isEqualTo(600_000);
        assertThat(config.topics().dispatchTopic(config.region())).isEqualTo("kvroute.dispatch.us-east");
    }

    @Test
    void shouldPassKafkaSettingsThrough() {
        Map<String, String> m = required();
        m.put("kafka.max.poll.records", "7");
        assertThat(WorkerConfig.from(Settings.of(m)).kafka()).containsEntry("max.poll.records", "7");
    }

    @Test
    void shouldRequireTheWorkerIdAndRegion() {
        Map<String, String> m = required();
        m.remove(WorkerConfig.WORKER_ID);
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class).hasMessageContaining("worker.id");
        Map<String, String> n = required();
        n.put(WorkerConfig.REGION, "US East");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(n))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.region").hasMessageContaining("US East");
    }

    @Test
    void shouldBoundMaxPollRecordsSoCommitMetadataFits() {
        Map<String, String> m = required();
        m.put("kafka.max.poll.records", "1000");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("kafka.max.poll.records").hasMessageContaining("1000");
    }

    @Test
    void shouldRejectAnEngineThatDoesNotExist() {
        Map<String, String> m = required();
        m.put(WorkerConfig.ENGINE, "tgi");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.engine").hasMessageContaining("tgi");
    }

    @Test
    void shouldLeaveOpenAiSettingsUnsetForTheSimulator() {
        assertThat(WorkerConfig.from(Settings.of(required())).openai()).isNull();
    }

    @Test
    void shouldApplyOpenAiDefaults() {
        Map<String, String> m = required();
        m.put(WorkerConfig.ENGINE, "openai");
        m.put(WorkerConfig.OPENAI_ENDPOINT, "http://gpu-1:8000");
        m.put(WorkerConfig.MODELS, "llama-3.1-8b,qwen-2.5-7b");
        OpenAiSettings openai = WorkerConfig.from(Settings.of(m)).openai();
        assertThat(openai.endpoint()).isEqualTo(URI.create("http://gpu-1:8000"));
        assertThat(openai.model()).isEqualTo("llama-3.1-8b");
        assertThat(openai.apiKey()).isNull();
        assertThat(openai.maxConcurrency()).isEqualTo(64);
        assertThat(openai.requestTimeoutMs()).isEqualTo(600_000);
        assertThat(openai.connectTimeoutMs()).isEqualTo(5_000);
        assertThat(openai.metricsIntervalMs()).isEqualTo(1_000);
        assertThat(openai.rateLimitCooldownMs()).isEqualTo(10_000);
        assertThat(openai.cacheSaltField()).isEqualTo("cache_salt");
        assertThat(openai.resolve("/v1/completions")).isEqualTo(URI.create("http://gpu-1:8000/v1/completions"));
    }

    @Test
    void shouldReadOpenAiSettingsAndNeverShowTheApiKey() {
        Map<String, String> m = required();
        m.put(WorkerConfig.ENGINE, "openai");
        m.put(WorkerConfig.OPENAI_ENDPOINT, "https://gpu-1.internal/v1/");
        m.put(WorkerConfig.OPENAI_MODEL, "meta-llama/Llama-3.1-8B-Instruct");
        m.put(WorkerConfig.OPENAI_API_KEY, "sk-secret-123");
        m.put(WorkerConfig.OPENAI_MAX_CONCURRENCY, "128");
        WorkerConfig config = WorkerConfig.from(Settings.of(m));
        assertThat(config.openai().model()).isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
        assertThat(config.openai().apiKey()).isEqualTo("sk-secret-123");
        assertThat(config.openai().maxConcurrency()).isEqualTo(128);
        assertThat(config.openai().resolve("/metrics")).isEqualTo(URI.create("https://gpu-1.internal/metrics"));
        assertThat(config.toString()).doesNotContain("sk-secret-123");
    }

    @Test
    void shouldSendNoCacheSaltWhenItsFieldIsSetEmptyAndRefuseABadField() {
        Map<String, String> m = required();
        m.put(WorkerConfig.ENGINE, "openai");
        m.put(WorkerConfig.OPENAI_ENDPOINT, "http://gpu-1:8000");
        m.put(WorkerConfig.OPENAI_CACHE_SALT_FIELD, "");
        assertThat(WorkerConfig.from(Settings.of(m)).openai().cacheSaltField()).isEmpty();
        m.put(WorkerConfig.OPENAI_CACHE_SALT_FIELD, "x_cache_salt");
        assertThat(WorkerConfig.from(Settings.of(m)).openai().cacheSaltField()).isEqualTo("x_cache_salt");
        m.put(WorkerConfig.OPENAI_CACHE_SALT_FIELD, "model");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining(WorkerConfig.OPENAI_CACHE_SALT_FIELD).hasMessageContaining("model");
        m.put(WorkerConfig.OPENAI_CACHE_SALT_FIELD, "cache salt\"");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining(WorkerConfig.OPENAI_CACHE_SALT_FIELD);
    }

    @Test
    void shouldRequireAnHttpEndpointForTheOpenAiEngine() {
        Map<String, String> m = required();
        m.put(WorkerConfig.ENGINE, "openai");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.openai.endpoint");
        m.put(WorkerConfig.OPENAI_ENDPOINT, "ftp://gpu-1:8000");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.openai.endpoint").hasMessageContaining("ftp://gpu-1:8000");
        m.put(WorkerConfig.OPENAI_ENDPOINT, "gpu-1:8000");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.openai.endpoint");
    }

    @Test
    void shouldRejectOutOfRangeOpenAiLimits() {
        Map<String, String> m = required();
        m.put(WorkerConfig.ENGINE, "openai");
        m.put(WorkerConfig.OPENAI_ENDPOINT, "http://gpu-1:8000");
        m.put(WorkerConfig.OPENAI_MAX_CONCURRENCY, "0");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.openai.max.concurrency").hasMessageContaining("0");
        m.put(WorkerConfig.OPENAI_MAX_CONCURRENCY, "8");
        m.put(WorkerConfig.OPENAI_REQUEST_TIMEOUT_MS, "soon");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.openai.request.timeout.ms").hasMessageContaining("soon");
    }

    @Test
    void shouldWarnOfAWorkerIdThatReadsLikeAnotherProcessesGpuSlot() {
        assertThat(WorkerConfig.from(Settings.of(required())).slotIdClash()).isEmpty();
        Map<String, String> m = required();
        m.put(WorkerConfig.WORKER_ID, "node-a-g1");
        assertThat(WorkerConfig.from(Settings.of(m)).slotIdClash()).hasValueSatisfying(warning -> assertThat(warning)
                .contains("worker.id 'node-a-g1'").contains("a worker 'node-a' with worker.gpus above 1"));
        m.put(WorkerConfig.WORKER_ID, "gpu-box-7");
        assertThat(WorkerConfig.from(Settings.of(m)).slotIdClash()).as("-g needs digits right after it").isEmpty();
    }

    @Test
    void shouldNameEachGpuSlotAfterTheProcessAndTakeAServerPerSlot() {
        assertThat(WorkerConfig.from(Settings.of(required())).slotIds()).containsExactly("w-1");

        Map<String, String> m = required();
        m.put(WorkerConfig.GPUS, "3");
        WorkerConfig sim = WorkerConfig.from(Settings.of(m));
        assertThat(sim.slotIds()).containsExactly("w-1-g0", "w-1-g1", "w-1-g2");
        assertThat(sim.transactionalId()).as("one process, one transactional id").isEqualTo("kvroute-worker-w-1");

        m.put(WorkerConfig.ENGINE, WorkerConfig.ENGINE_OPENAI);
        m.put(WorkerConfig.OPENAI_ENDPOINT, "http://127.0.0.1:8000, http://127.0.0.1:8001,http://127.0.0.1:8002/v1");
        WorkerConfig openai = WorkerConfig.from(Settings.of(m));
        assertThat(openai.openaiOf(1).endpoint().toString()).isEqualTo("http://127.0.0.1:8001");
        assertThat(openai.openaiOf(2).model()).isEqualTo(openai.openai().model());

        m.put(WorkerConfig.OPENAI_ENDPOINT, "http://127.0.0.1:8000,http://127.0.0.1:8001");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining(WorkerConfig.OPENAI_ENDPOINT).hasMessageContaining("2 server(s)").hasMessageContaining("is 3");
        m.put(WorkerConfig.GPUS, "65");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                .hasMessageContaining(WorkerConfig.GPUS);
    }

    @Test
    void shouldRejectOutOfRangeNumbers() {
        Map<String, String> m = required();
        m.put(WorkerConfig.SIM_SPEED, "0");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class).hasMessageContaining("worker.sim.speed");
        Map<String, String> n = required();
        n.put(WorkerConfig.CHUNK_TOKENS, "lots");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(n))).isInstanceOf(ConfigException.class).hasMessageContaining("worker.chunk.tokens");
    }

    @Test
    void shouldBoundTheCancellationLookbackByTheCancellationsRetention() {
        Map<String, String> none = required();
        none.put(WorkerConfig.CANCELLATION_LOOKBACK_MS, "0");
        assertThat(WorkerConfig.from(Settings.of(none)).cancellationLookbackMs()).isZero();
        for (String bad : new String[] {"-1", "604800001", "ten minutes"}) {
            Map<String, String> m = required();
            m.put(WorkerConfig.CANCELLATION_LOOKBACK_MS, bad);
            assertThatThrownBy(() -> WorkerConfig.from(Settings.of(m))).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("worker.cancellation.lookback.ms").hasMessageContaining(bad);
        }
    }

    @Test
    void shouldWireTheHostKvTierIntoTheEngineLimits() {
        Map<String, String> m = required();
        m.put(WorkerConfig.SIM_HOST_KV_BLOCKS, "65536");
        assertThat(WorkerConfig.from(Settings.of(m)).engineLimits().hostKvBlocks()).isEqualTo(65_536);
        Map<String, String> n = required();
        n.put(WorkerConfig.SIM_HOST_KV_BLOCKS, "-1");
        assertThatThrownBy(() -> WorkerConfig.from(Settings.of(n))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("worker.sim.host.kv.blocks").hasMessageContaining("-1");
    }
}
