package io.kvroute.ingress.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.ingress.client.Chunk;
import io.kvroute.ingress.client.CollectResult;
import io.kvroute.ingress.client.CollectTarget;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.ResponseCollector;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.ingress.prompt.PrefixSalt;
import io.kvroute.ingress.prompt.PromptHasher;
import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.Priority;
import io.kvroute.schemas.v1.ResponseStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class KvrouteClientIntegrationTest {
    private static final Instant NOW = Instant.parse("2026-11-30T06:00:00Z");
    private static final String SYSTEM = "You are a careful assistant. ".repeat(20);

    private static IngressStack stack;
    private static FakeWorker worker;
    private static KvrouteClient client;

    @BeforeAll
    static void start() {
        stack = new IngressStack();
        worker = new FakeWorker(stack).answering();
        client = new KvrouteClient(stack.clientConfig(), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (worker != null) {
            worker.close();
        }
    }

    @Test
    void shouldWriteRequestsWithPrefixHashesAndNoTextOutsideThePrompt() {
        SubmitRequest chat = SubmitRequest.builder().customId("chat-1").model("llama-3.1-8b").maxTokens(32)
                .message("system", SYSTEM).message("user", "Summarise the history of Kafka. ".repeat(12))
                .priority(Priority.INTERACTIVE).allowedRegions(List.of("eu-west")).deadline(NOW.plusSeconds(60)).build();
        SubmitRequest completion = SubmitRequest.builder().requestId("fixed-id-1").customId("text-1").tenant("acme")
                .model("llama-3.1-8b").maxTokens(8).prompt(SYSTEM + "Continue:").build();

        String chatId = client.send(chat);
        String textId = client.send(completion);
        client.flush();

        await().atMost(Duration.ofSeconds(20)).until(() -> worker.received().keySet().containsAll(List.of(chatId, textId)));
        InferenceRequest chatRecord = worker.received().get(chatId);
        InferenceRequest textRecord = worker.received().get(textId);
        List<ChatMessage> messages = chat.messages().orElseThrow();
        PromptHasher hasher = new PromptHasher();

        assertThat(textId).isEqualTo("fixed-id-1");
        assertThat(chatId).hasSize(36);
        assertThat(chatRecord.getCustomId()).isEqualTo("chat-1");
        assertThat(chatRecord.getTenant()).isEqualTo("default");
        assertThat(chatRecord.getMessages()).isEqualTo(messages);
        assertThat(chatRecord.getPrompt()).isNull();
        assertThat(chatRecord.getPrefixBlockHashes()).isEqualTo(hasher.fingerprint(messages, PrefixSalt.ofTenant("default")).hashList())
                .isNotEmpty();
        assertThat(chatRecord.getCacheSalt()).isEqualTo(PrefixSalt.ofTenant("default").cacheSalt());
        assertThat(chatRecord.getPrefixBlockHashes()).hasSize(PromptHasher.canonicalText(messages).length() / 256);
        assertThat(chatRecord.getPromptTokenEstimate()).isEqualTo(PromptHasher.estimateTokens(PromptHasher.canonicalText(messages).length()));
        assertThat(chatRecord.getPrefixBlockTokens()).isEqualTo(64);
        assertThat(chatRecord.getSubmittedAtMs()).isEqualTo(NOW.toEpochMilli());
        assertThat(chatRecord.getPriority()).isEqualTo(Priority.INTERACTIVE);
        assertThat(chatRecord.getAllowedRegions()).containsExactly("eu-west");
        assertThat(chatRecord.getDeadlineMs()).isEqualTo(NOW.plusSeconds(60).toEpochMilli());
        assertThat(textRecord.getTenant()).isEqualTo("acme");
        assertThat(textRecord.getPrompt()).isEqualTo(SYSTEM + "Continue:");
        assertThat(textRecord.getMessages()).isNull();
        assertThat(textRecord.getPrefixBlockHashes()).isEqualTo(hasher.fingerprint(SYSTEM + "Continue:", PrefixSalt.ofTenant("acme")).hashList());
        assertThat(textRecord.getCacheSalt()).isEqualTo(PrefixSalt.ofTenant("acme").cacheSalt());
        assertThat(textRecord.getPriority()).isEqualTo(Priority.BATCH);
    }

    @Test
    void shouldCompleteEachFutureWithItsAssembledTextAndStreamItsChunks() throws Exception {
        List<SubmitRequest> requests = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            requests.add(SubmitRequest.builder().customId("batch-" + i).model("llama-3.1-8b").maxTokens(4)
                    .prompt(SYSTEM + "item " + i).build());
        }
        requests.add(SubmitRequest.builder().customId("rejected").model(FakeWorker.REJECT_MODEL).maxTokens(4).prompt("x").build());

        List<CompletableFuture<Completion>> futures = client.submitAll(requests);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        for (int i = 0; i < 20; i++) {
            Completion c = futures.get(i).join();
            assertThat(c.status()).isEqualTo(ResponseStatus.COMPLETED);
            assertThat(c.text()).isEqualTo("echo:batch-" + i);
            assertThat(c.usage().completionTokens()).isEqualTo(2);
            assertThat(c.workerId()).isEqualTo("fake-0");
            assertThat(c.textComplete()).isTrue();
        }
        Completion rejected = futures.get(20).join();
        assertThat(rejected.status()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(rejected.error()).isEqualTo("rejected by test");
        assertThat(client.pendingCompletions()).isZero();
    }

    @Test
    void shouldApplyTheResponseRuleToDuplicatesReordersAndRetries() throws Exception {
        SubmitRequest request = SubmitRequest.builder().tenant(FakeWorker.MANUAL_TENANT).customId("manual-1")
                .model("llama-3.1-8b").maxTokens(4).prompt("hello").build();
        List<Chunk> streamed = Collections.synchronizedList(new ArrayList<>());
        InferenceRequest prepared = client.prepare(request);
        String id = prepared.getRequestId();

        CompletableFuture<Completion> future = client.submit(prepared, streamed::add);
        worker.chunk(id, 1, 0, "first try ");
        worker.terminal(id, 2, 0, ResponseStatus.CANCELLED, 0);
        worker.chunk(id, 1, 1, "stale");
        worker.chunk(id, 2, 1, "world");
        worker.chunk(id, 2, 1, "world");
        worker.chunk(id, 2, 0, "hello ");
        worker.chunk(id, 2, 0, "hello ");
        worker.terminal(id, 2, 2, ResponseStatus.COMPLETED, 2);
        worker.terminal(id, 2, 2, ResponseStatus.COMPLETED, 2);
        Completion completion = future.get(20, TimeUnit.SECONDS);

        assertThat(completion.status()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(completion.attempt()).isEqualTo(2);

        CollectResult replay = new ResponseCollector(stack.clientConfig(), Clock.systemUTC())
                .collect(CollectTarget.ids(Set.of(id)), Duration.ofSeconds(20), (latest, count) -> { });
        assertThat(replay.completions()).singleElement().extracting(Completion::status).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(streamed).extracting(Chunk::attempt).containsOnly(1);
    }

    @Test
    void shouldAssembleOutOfOrderAndDuplicatedChunksIntoOneCompletion() throws Exception {
        SubmitRequest request = SubmitRequest.builder().tenant(FakeWorker.MANUAL_TENANT).customId("manual-2")
                .model("llama-3.1-8b").maxTokens(4).prompt("hello").build();
        List<Chunk> streamed = Collections.synchronizedList(new ArrayList<>());
        InferenceRequest prepared = client.prepare(request);
        String id = prepared.getRequestId();

        CompletableFuture<Completion> future = client.submit(prepared, streamed::add);
        worker.chunk(id, 1, 0, "abandoned ");
        worker.chunk(id, 2, 2, "!");
        worker.chunk(id, 2, 0, "hello ");
        worker.chunk(id, 1, 1, "stale");
        worker.chunk(id, 2, 0, "hello ");
        worker.chunk(id, 2, 1, "world");
        worker.terminal(id, 2, 3, ResponseStatus.COMPLETED, 3);
        worker.terminal(id, 2, 3, ResponseStatus.COMPLETED, 3);
        Completion completion = future.get(20, TimeUnit.SECONDS);

        assertThat(completion.text()).isEqualTo("hello world!");
        assertThat(completion.attempt()).isEqualTo(2);
        assertThat(completion.customId()).isEqualTo("manual-2");
        assertThat(streamed).extracting(Chunk::attempt, Chunk::text).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1, "abandoned "),
                org.assertj.core.groups.Tuple.tuple(2, "hello "),
                org.assertj.core.groups.Tuple.tuple(2, "world"),
                org.assertj.core.groups.Tuple.tuple(2, "!"));
        CollectResult replay = new ResponseCollector(stack.clientConfig(), Clock.systemUTC())
                .collect(CollectTarget.ids(Set.of(id)), Duration.ofSeconds(20), (latest, count) -> { });
        assertThat(replay.completions()).singleElement().extracting(Completion::text).isEqualTo("hello world!");
        assertThat(replay.complete()).isTrue();
        assertThat(client.pendingCompletions()).isZero();
    }

    @Test
    void shouldCompleteOnlyWithTheFirstRequestsResultWhenADuplicateSubmissionIsRejected() throws Exception {
        SubmitRequest request = SubmitRequest.builder().tenant(FakeWorker.MANUAL_TENANT).customId("manual-dup")
                .model("llama-3.1-8b").maxTokens(4).prompt("hello").build();
        InferenceRequest prepared = client.prepare(request);
        String id = prepared.getRequestId();
        long rejectionsBefore = client.duplicateRejections();

        CompletableFuture<Completion> future = client.submit(prepared, chunk -> { });
        worker.duplicateRejection(id);
        worker.chunk(id, 65_537, 0, "still ");
        worker.duplicateRejection(id);
        worker.chunk(id, 65_537, 1, "mine");
        worker.terminal(id, 65_537, 2, ResponseStatus.COMPLETED, 2);
        worker.duplicateRejection(id);
        Completion completion = future.get(20, TimeUnit.SECONDS);

        assertThat(completion.status()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(completion.text()).isEqualTo("still mine");
        // the third came after the completion, when the client no longer follows the id
        await().atMost(Duration.ofSeconds(20)).until(() -> client.duplicateRejections() - rejectionsBefore == 2);
        CollectResult replay = new ResponseCollector(stack.clientConfig(), Clock.systemUTC())
                .collect(CollectTarget.ids(Set.of(id)), Duration.ofSeconds(20), (latest, count) -> { });
        assertThat(replay.completions()).singleElement().extracting(Completion::text).isEqualTo("still mine");
        assertThat(replay.duplicateRejections()).extracting(d -> d.requestId()).containsExactly(id, id, id);
        // by now the third is on the topic too: still not counted by the client that stopped following the id
        assertThat(client.duplicateRejections() - rejectionsBefore).isEqualTo(2);
    }

    @Test
    void shouldFollowARequestSentFireAndForget() throws Exception {
        String id = client.send(SubmitRequest.builder().tenant(FakeWorker.MANUAL_TENANT).customId("watched")
                .model("llama-3.1-8b").maxTokens(2).prompt("ping").build());
        client.flush();
        List<Chunk> streamed = Collections.synchronizedList(new ArrayList<>());

        CompletableFuture<Completion> watched = client.watch(id, streamed::add);
        worker.chunk(id, 1, 0, "pong");
        worker.terminal(id, 1, 1, ResponseStatus.COMPLETED, 1);

        assertThat(watched.get(20, TimeUnit.SECONDS).text()).isEqualTo("pong");
        assertThat(streamed).extracting(Chunk::text).containsExactly("pong");
    }
}
