package io.kvroute.ingress.client;

import io.kvroute.ingress.client.internal.TopicReader;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.ResponseEvent;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ObjIntConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads {@code <prefix>.responses} from the beginning and assembles completions by the response
 * rule (see {@link ResponseAssembler}) until a {@link CollectTarget} is met or a timeout passes.
 * This is how a pipeline that used fire-and-forget {@link KvrouteClient#send} gets its results,
 * possibly from another process and long after submitting. Runs on the calling thread.
 */
public final class ResponseCollector {
    private static final Duration POLL = Duration.ofMillis(200);

    private final ClientConfig config;
    private final Clock clock;
    private final Serdes serdes;

    public ResponseCollector(ClientConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.serdes = new Serdes(config.serdeConfig());
    }

    /**
     * Collects until the target is met or {@code timeout} passes. {@code progress} is called after
     * each poll with the latest completion (or null) and the number of results so far.
     */
    public CollectResult collect(CollectTarget target, Duration timeout, ObjIntConsumer<Completion> progress) {
        Map<String, Completion> found = new LinkedHashMap<>();
        List<Completion> latest = new ArrayList<>(1);
        List<DuplicateRejection> duplicates = new ArrayList<>();
        ResponseListener sink = new ResponseListener() {
            @Override
            public void onCompletion(Completion completion) {
                found.put(completion.requestId(), completion);
                latest.add(completion);
            }

            @Override
            public void onDuplicateRejected(DuplicateRejection rejection) {
                duplicates.add(rejection);
            }
        };
        ResponseAssembler assembler = new ResponseAssembler(sink, target::tracks, config.chunkGraceMs(), ResponseAssembler.DEFAULT_FINISHED_MEMORY);
        long deadline = clock.millis() + timeout.toMillis();
        try (TopicReader<ResponseEvent> reader = new TopicReader<>(config.readerConfig("collect"),
                config.responsesTopic(), serdes.valueSerde(ResponseEvent.class).deserializer())) {
            reader.openAll(StartPosition.BEGINNING);
            Map<TopicPartition, Long> ends = target.expected().isPresent() ? Map.of() : reader.endOffsets();
            boolean done = metBy(target, found, false);
            while (!done && clock.millis() < deadline) {
                latest.clear();
                reader.poll(POLL, (record, event) -> assembler.accept(event, clock.millis()));
                assembler.expire(clock.millis());
                boolean caughtUp = !ends.isEmpty() && reader.reached(ends);
                if (caughtUp) {
                    assembler.flushTerminated();
                }
                progress.accept(latest.isEmpty() ? null : latest.get(latest.size() - 1), found.size());
                done = metBy(target, found, caughtUp);
            }
            assembler.flushTerminated();
            Set<String> missing = new HashSet<>(target.requestIds());
            missing.removeAll(found.keySet());
            return new CollectResult(new ArrayList<>(found.values()), missing, metBy(target, found, done), reader.undecodable(),
                    duplicates);
        }
    }

    private static boolean metBy(CollectTarget target, Map<String, Completion> found, boolean caughtUp) {
        if (target.isIds()) {
            return found.keySet().containsAll(target.requestIds());
        }
        return target.expected().isPresent() ? found.size() >= target.expected().getAsInt() : caughtUp;
    }
}
