package io.kvroute.ingress.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.ingress.cli.CancelCommand;
import io.kvroute.ingress.cli.CollectCommand;
import io.kvroute.ingress.cli.DecisionsCommand;
import io.kvroute.ingress.cli.SubmitCommand;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.RoutingDecision;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.time.Duration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CommandsIntegrationTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static IngressStack stack;
    private static FakeWorker worker;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        stack = new IngressStack();
        worker = new FakeWorker(stack).answering();
    }

    @AfterAll
    static void stop() throws Exception {
        if (worker != null) {
            worker.close();
        }
    }

    @Test
    void shouldSubmitABatchFileAndCollectOpenAiBatchOutput() throws Exception {
        Path input = dir.resolve("batch.jsonl");
        Files.writeString(input, String.join("\n",
                line("a", "/v1/chat/completions", "llama-3.1-8b", "\"messages\": [{\"role\": \"user\", \"content\": \"hi a\"}]"),
                line("b", "/v1/completions", "llama-3.1-8b", "\"prompt\": \"hi b\""),
                "{\"custom_id\": \"broken\", \"method\": \"POST\"",
                line("c", "/v1/chat/completions", FakeWorker.REJECT_MODEL, "\"messages\": [{\"role\": \"user\", \"content\": \"hi c\"}]"))
                + "\n");
        Path manifest = dir.resolve("batch.manifest.jsonl");

        Run submit = run(new SubmitCommand(), "submit", input.toString(), "--manifest", manifest.toString());

        assertThat(submit.exit).isZero();
        assertThat(submit.out).contains("submitted 3 requests, 1 malformed lines skipped");
        assertThat(submit.err).contains("line 3:");
        assertThat(Files.readAllLines(manifest)).hasSize(3);

        Path output = dir.resolve("out.jsonl");
        Run collect = run(new CollectCommand(), "collect", "--output", output.toString(), "--ids", manifest.toString(), "--timeout", "30s");

        assertThat(collect.exit).as(collect.err).isZero();
        assertThat(collect.out).contains("collected 3 results");
        Map<String, JsonNode> byCustomId = Files.readAllLines(output).stream().map(CommandsIntegrationTest::parse)
                .collect(Collectors.toMap(n -> n.get("custom_id").asText(), Function.identity()));
        assertThat(byCustomId).containsOnlyKeys("a", "b", "c");
        JsonNode a = byCustomId.get("a");
        assertThat(a.get("id").asText()).startsWith("batch_req_");
        assertThat(a.get("error").isNull()).isTrue();
        assertThat(a.at("/response/status_code").asInt()).isEqualTo(200);
        assertThat(a.at("/response/body/object").asText()).isEqualTo("chat.completion");
        assertThat(a.at("/response/body/model").asText()).isEqualTo("llama-3.1-8b");
        assertThat(a.at("/response/body/choices/0/message/content").asText()).isEqualTo("echo:a");
        assertThat(a.at("/response/body/usage/total_tokens").asInt()).isEqualTo(32);
        assertThat(a.at("/response/body/usage/prompt_tokens_details/cached_tokens").asInt()).isEqualTo(16);
        JsonNode b = byCustomId.get("b");
        assertThat(b.at("/response/body/object").asText()).isEqualTo("text_completion");
        assertThat(b.at("/response/body/choices/0/text").asText()).isEqualTo("echo:b");
        JsonNode c = byCustomId.get("c");
        assertThat(c.get("response").isNull()).isTrue();
        assertThat(c.at("/error/code").asText()).isEqualTo("rejected");
    }

    @Test
    void shouldExitNonZeroAndMarkResultsMissingAtTheTimeout() throws Exception {
        Path ids = dir.resolve("ids.txt");
        Files.writeString(ids, "never-submitted-1\n");
        Path output = dir.resolve("out.jsonl");

        Run collect = run(new CollectCommand(), "collect", "--output", output.toString(), "--ids", ids.toString(), "--timeout", "2s");

        assertThat(collect.exit).isEqualTo(1);
        assertThat(collect.out).contains("1 missing");
        assertThat(parse(Files.readAllLines(output).get(0)).at("/error/code").asText()).isEqualTo("missing");
    }

    @Test
    void shouldCollectTheFirstRequestsResultAndReportARejectedDuplicateSubmissionApart() throws Exception {
        String id = "dup-" + java.util.UUID.randomUUID();
        Path ids = dir.resolve("dup-ids.txt");
        Files.writeString(ids, id + "\n");
        worker.duplicateRejection(id);
        worker.chunk(id, 65_537, 0, "the first one wins");
        worker.terminal(id, 65_537, 1, io.kvroute.schemas.v1.ResponseStatus.COMPLETED, 4);
        worker.duplicateRejection(id);
        Path output = dir.resolve("dup-out.jsonl");

        Run collect = run(new CollectCommand(), "collect", "--output", output.toString(), "--ids", ids.toString(), "--timeout", "30s");

        assertThat(collect.exit).as(collect.err).isZero();
        assertThat(collect.out).contains("collected 1 results {COMPLETED=1}");
        assertThat(collect.err).contains("duplicate submissions were rejected").contains(id);
        List<String> lines = Files.readAllLines(output);
        assertThat(lines).hasSize(1);
        assertThat(parse(lines.get(0)).at("/response/status_code").asInt()).isEqualTo(200);
    }

    @Test
    void shouldWaitForResultsWhenAsked() throws Exception {
        Path input = dir.resolve("wait.jsonl");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            lines.add(line("w" + i, "/v1/completions", "llama-3.1-8b", "\"prompt\": \"p" + i + "\""));
        }
        Files.write(input, lines);

        Run submit = run(new SubmitCommand(), "submit", input.toString(), "--wait", "--timeout", "30s", "--tenant", "t1");

        assertThat(submit.exit).as(submit.err).isZero();
        assertThat(submit.out).contains("submitted 10 requests").contains("COMPLETED=10").contains("missing 0");
        assertThat(dir.resolve("wait.jsonl.manifest.jsonl")).exists();
    }

    @Test
    void shouldPrintTheDecisionsOfOneRequestAndFollowNewOnes() throws Exception {
        try (KafkaProducer<String, RoutingDecision> producer = new KafkaProducer<>(Map.of("bootstrap.servers", stack.bootstrapServers),
                new StringSerializer(), stack.serdes.valueSerde(RoutingDecision.class).serializer())) {
            for (String id : List.of("d1", "d2", "d3")) {
                producer.send(new ProducerRecord<>(stack.topics.decisions().name(), id, decision(id)));
            }
            producer.flush();
        }

        Run one = run(new DecisionsCommand(), "decisions", "--request", "d2", "--json");
        Run all = run(new DecisionsCommand(), "decisions");
        Run follow = run(new DecisionsCommand(), "decisions", "--follow", "--from-beginning", "--limit", "3");
        Run none = run(new DecisionsCommand(), "decisions", "--request", "absent", "--timeout", "5s");

        assertThat(one.exit).as(one.err).isZero();
        assertThat(one.out.lines().toList()).singleElement().satisfies(l -> {
            JsonNode n = parse(l);
            assertThat(n.get("request_id").asText()).isEqualTo("d2");
            assertThat(n.get("outcome").asText()).isEqualTo("DISPATCHED");
            assertThat(n.get("worker_id").asText()).isEqualTo("w-2");
        });
        assertThat(all.out.lines().toList()).hasSize(3).allMatch(l -> l.contains("DISPATCHED") && l.contains("policy=kv-aware"));
        assertThat(follow.exit).isZero();
        assertThat(follow.out.lines().toList()).hasSize(3);
        assertThat(none.exit).isEqualTo(1);
    }

    @Test
    void shouldWriteACancelEventKeyedByTheRequestId() {
        Run cancel = run(new CancelCommand(), "cancel", "req-to-cancel", "--reason", "user asked");

        assertThat(cancel.exit).as(cancel.err).isZero();
        assertThat(cancel.out).contains("req-to-cancel");
        String topic = stack.topics.cancellations().name();
        try (KafkaConsumer<String, CancelRequest> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", stack.bootstrapServers),
                new StringDeserializer(), stack.serdes.valueSerde(CancelRequest.class).deserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<String, CancelRequest>> seen = new ArrayList<>();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                return !seen.isEmpty();
            });
            assertThat(seen).singleElement().satisfies(r -> {
                assertThat(r.key()).isEqualTo("req-to-cancel");
                assertThat(r.value().getRequestId()).isEqualTo("req-to-cancel");
                assertThat(r.value().getReason()).isEqualTo("user asked");
                assertThat(r.value().getRequestedAtMs()).isPositive();
            });
        }
    }

    private static RoutingDecision decision(String id) {
        return RoutingDecision.newBuilder().setRequestId(id).setTenant("default").setModel("llama-3.1-8b")
                .setOutcome(DecisionOutcome.DISPATCHED).setRegion("eu-west").setPartition(2).setWorkerId("w-2")
                .setPolicy("kv-aware").setPromptBlocks(3).setMatchedPrefixBlocks(1).setScore(0.5)
                .setCandidatesConsidered(2).setReason("least loaded with prefix").setDecidedAtMs(1).build();
    }

    private static String line(String customId, String url, String model, String payload) {
        return "{\"custom_id\": \"" + customId + "\", \"method\": \"POST\", \"url\": \"" + url + "\", \"body\": {\"model\": \""
                + model + "\", \"max_tokens\": 4, " + payload + "}}";
    }

    private static JsonNode parse(String line) {
        try {
            return JSON.readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(Callable<Integer> command, String name, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> all = new ArrayList<>(stack.connectionArgs());
        all.addAll(List.of(args));
        if (!(command instanceof DecisionsCommand || command instanceof CancelCommand)) {
            all.add("--no-progress");
        }
        int exit = new CommandLine(command).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(all.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }
}
