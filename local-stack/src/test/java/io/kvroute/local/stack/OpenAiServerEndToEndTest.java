package io.kvroute.local.stack;

import io.kvroute.bench.sim.FleetSpec;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.ingress.prompt.PrefixSalt;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.engine.openai.ReplayServer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The whole path with a worker driving an OpenAI-compatible server: client → requests → router →
 * dispatch → worker (engine openai) → a local server replaying vLLM's streaming wire format →
 * responses → client, on the real broker and registry.
 */
class OpenAiServerEndToEndTest {

    /** The router and the fleet's workers, every worker driving {@code server}, on the real broker and registry. */
    private static KvrouteServices servicesFor(ReplayServer server, KvrouteTopics topics, String fleet) throws Exception {
        return new KvrouteServices(TestKafka.bootstrapServers(), TestRegistry.url(), topics, FleetSpec.parse(fleet), "kvroute",
                Files.createTempDirectory("kvroute-oai"),
                Map.of("worker.engine", "openai",
                        "worker.openai.endpoint", server.uri().toString(),
                        "worker.openai.model", "meta-llama/Llama-3.1-8B-Instruct")).start();
    }

    private static KvrouteClient clientFor(KvrouteTopics topics) {
        return KvrouteClient.create(ClientConfig.of(Map.of(
                ClientConfig.BOOTSTRAP_SERVERS, TestKafka.bootstrapServers(),
                ClientConfig.SCHEMA_REGISTRY_URL, TestRegistry.url(),
                ClientConfig.TOPIC_PREFIX, topics.prefix())));
    }

    @Test
    void shouldServeRequestsEndToEndThroughAnOpenAiCompatibleServer() throws Exception {
        KvrouteTopics topics = new KvrouteTopics("oai" + System.nanoTime(), 2);
        try (ReplayServer server = ReplayServer.start((path, body) -> path.endsWith("/metrics")
                    ? ReplayServer.page("vllm-0.11-metrics.txt")
                    : ReplayServer.stream("vllm-0.9-completions-stream.txt"));
             KvrouteServices services = servicesFor(server, topics, "us-east=1@0");
             KvrouteClient client = clientFor(topics)) {
            List<CompletableFuture<Completion>> futures = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                futures.add(client.submit(SubmitRequest.builder().customId("q" + i).model(KvrouteServices.MODEL)
                        .prompt("The capital of France is").maxTokens(16).build()));
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);

            for (CompletableFuture<Completion> future : futures) {
                Completion completion = future.join();
                assertThat(completion.status()).as(completion.error()).isEqualTo(ResponseStatus.COMPLETED);
                assertThat(completion.text()).startsWith(" Paris is the capital of France");
                assertThat(completion.usage().promptTokens()).isEqualTo(1312);
                assertThat(completion.usage().completionTokens()).isEqualTo(7);
                assertThat(completion.usage().cachedTokens()).isEqualTo(1280);
                assertThat(completion.region()).isEqualTo("us-east");
            }
            assertThat(server.received()).anySatisfy(r -> assertThat(r.path()).endsWith("/v1/completions"));
            assertThat(server.received()).filteredOn(r -> r.path().endsWith("/v1/completions"))
                    .allSatisfy(r -> assertThat(r.body()).contains("\"stream\":true").contains("meta-llama/Llama-3.1-8B-Instruct")
                            .contains("\"cache_salt\":\"" + PrefixSalt.ofTenant(ClientConfig.DEFAULT_TENANT).cacheSalt() + "\""));
        }
    }

    /**
     * A server that answers the first completion with 429 (Retry-After 30 s): that worker hands the
     * run back, the router places it on the other region's worker, whose call succeeds; the client
     * sees one COMPLETED result, of the second dispatch attempt.
     */
    @Test
    void shouldPlaceARunRefusedForARateLimitOnAnotherWorker() throws Exception {
        KvrouteTopics topics = new KvrouteTopics("oai429" + System.nanoTime(), 2);
        java.util.concurrent.atomic.AtomicInteger completionCalls = new java.util.concurrent.atomic.AtomicInteger();
        try (ReplayServer server = ReplayServer.start((path, body) -> {
                    if (path.endsWith("/metrics")) {
                        return ReplayServer.page("vllm-0.11-metrics.txt");
                    }
                    return completionCalls.incrementAndGet() == 1
                            ? ReplayServer.error(429, "error-429.json", Map.of("Retry-After", "30", "Content-Type", "application/json"))
                            : ReplayServer.stream("vllm-0.9-completions-stream.txt");
                });
             KvrouteServices services = servicesFor(server, topics, "us-east=1@0,eu-west=1@0");
             KvrouteClient client = clientFor(topics)) {
            Completion completion = client.submit(SubmitRequest.builder().customId("limited").model(KvrouteServices.MODEL)
                    .prompt("The capital of France is").maxTokens(16).build()).get(2, TimeUnit.MINUTES);

            assertThat(completion.status()).as(completion.error()).isEqualTo(ResponseStatus.COMPLETED);
            assertThat(completion.text()).startsWith(" Paris is the capital of France");
            assertThat(io.kvroute.schemas.topics.RunAttempt.dispatchAttemptOf(completion.attempt()))
                    .as("placed again after the hand-back").isEqualTo(2);
            assertThat(completionCalls.get()).isEqualTo(2);
        }
    }
}
