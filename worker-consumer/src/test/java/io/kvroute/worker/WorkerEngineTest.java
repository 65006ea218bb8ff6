package io.kvroute.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.platform.config.Settings;
import io.kvroute.worker.config.WorkerConfig;
import io.kvroute.worker.engine.InferenceEngine;
import io.kvroute.worker.engine.ObservingEngine;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerEngineTest {

    private static Map<String, String> settings(String engine) {
        Map<String, String> m = new HashMap<>();
        m.put(WorkerConfig.BOOTSTRAP_SERVERS, "localhost:9092");
        m.put(WorkerConfig.SCHEMA_REGISTRY_URL, "mock://x");
        m.put(WorkerConfig.WORKER_ID, "w-1");
        m.put(WorkerConfig.REGION, "us-east");
        m.put(WorkerConfig.ENGINE, engine);
        m.put(WorkerConfig.OPENAI_ENDPOINT, "http://127.0.0.1:9");
        m.put(WorkerConfig.OPENAI_MODEL, "meta-llama/Llama-3.1-8B-Instruct");
        return m;
    }

    @Test
    void shouldObserveTheSimulatedGpuAndAnOpenAiServerThroughOnePath() {
        for (String kind : new String[] {WorkerConfig.ENGINE_SIM, WorkerConfig.ENGINE_OPENAI}) {
            WorkerConfig config = WorkerConfig.from(Settings.of(settings(kind)));
            try (InferenceEngine engine = WorkerApp.engine(config, System::currentTimeMillis)) {
                assertThat(engine).as(kind).isInstanceOf(ObservingEngine.class);
            }
        }
    }

    @Test
    void shouldNameThePoolByTheSimulatedProfileOrTheServedModelUnlessTold() {
        assertThat(WorkerConfig.from(Settings.of(settings(WorkerConfig.ENGINE_SIM))).pool()).isEqualTo("llama-8b-h100");
        assertThat(WorkerConfig.from(Settings.of(settings(WorkerConfig.ENGINE_OPENAI))).pool())
                .isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
        Map<String, String> told = settings(WorkerConfig.ENGINE_OPENAI);
        told.put(WorkerConfig.POOL, "llama-8b-a100");
        assertThat(WorkerConfig.from(Settings.of(told)).pool()).isEqualTo("llama-8b-a100");
    }
}
