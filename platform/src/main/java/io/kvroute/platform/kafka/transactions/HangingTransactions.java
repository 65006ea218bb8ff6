package io.kvroute.platform.kafka.transactions;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds transactions that partitions hold open although their coordinator will never end them,
 * and aborts them on request, as Kafka's own {@code kafka-transactions.sh find-hanging} and
 * {@code abort} do: the same Admin calls (DescribeProducers on every partition, the coordinator's
 * view by producer id, then WriteTxnMarkers through {@code abortTransaction}).
 *
 * <p>Aborting gives up what the transaction wrote; for kvroute that is safe by construction,
 * because a worker's results and the dispatch offsets they free are in the same transaction: the
 * offsets go back too and the next owner of the partition runs those requests again.
 */
public final class HangingTransactions {
    private static final Logger LOG = LoggerFactory.getLogger(HangingTransactions.class);
    private static final long CALL_TIMEOUT_S = 30;

    private final Admin admin;
    private final HangingTransactionRule rule;
    private final LongSupplier clock;

    public HangingTransactions(Admin admin, HangingTransactionRule rule, LongSupplier clock) {
        this.admin = admin;
        this.rule = rule;
        this.clock = clock;
    }

    /** The hanging transactions of every partition of the cluster, internal topics included. */
    public List<OpenTransaction> find() {
        List<OpenTransaction> open = openTransactions();
        Map<Long, Optional<CoordinatorTransaction>> coordinators = new HashMap<>();
        long now = clock.getAsLong();
        List<OpenTransaction> hanging = new ArrayList<>();
        for (OpenTransaction o : open) {
            Optional<CoordinatorTransaction> coordinator = coordinators.computeIfAbsent(o.producerId(), this::coordinatorView);
            if (rule.isHanging(o, coordinator, now)) {
                hanging.add(o);
            }
        }
        return hanging;
    }

    /** Aborts each of {@link #find()}'s transactions; returns those aborted. */
    public List<OpenTransaction> abortHanging() {
        List<OpenTransaction> aborted = new ArrayList<>();
        for (OpenTransaction o : find()) {
            try {
                await(admin.abortTransaction(new AbortTransactionSpec(o.partition(), o.producerId(), o.producerEpoch(),
                        o.coordinatorEpoch())).all());
                LOG.warn("aborted a hanging transaction: {}", o);
                aborted.add(o);
            } catch (KafkaException e) {
                LOG.warn("could not abort the hanging transaction {}: {}", o, e.toString());
            }
        }
        return aborted;
    }

    private List<OpenTransaction> openTransactions() {
        Set<String> topics = await(admin.listTopics(new ListTopicsOptions().listInternal(true)).names());
        Map<String, TopicDescription> descriptions = await(admin.describeTopics(topics).allTopicNames());
        List<TopicPartition> partitions = descriptions.values().stream()
                .flatMap(d -> d.partitions().stream().map(p -> new TopicPartition(d.name(), p.partition())))
                .toList();
        List<OpenTransaction> open = new ArrayList<>();
        DescribeProducersResult producers = admin.describeProducers(partitions);
        List<TopicPartition> unreadable = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            DescribeProducersResult.PartitionProducerState description;
            try {
                description = await(producers.partitionResult(tp));
            } catch (KafkaException e) {
                // a partition without a leader right now: the others are still worth looking at
                unreadable.add(tp);
                continue;
            }
            for (ProducerState p : description.activeProducers()) {
                if (p.currentTransactionStartOffset().isPresent()) {
                    open.add(new OpenTransaction(tp, p.producerId(), (short) p.producerEpoch(),
                            p.coordinatorEpoch().orElse(0), p.currentTransactionStartOffset().getAsLong(), p.lastTimestamp()));
                }
            }
        }
        if (!unreadable.isEmpty()) {
            LOG.warn("could not describe the producers of {} partitions (e.g. {}); they are not checked this time",
                    unreadable.size(), unreadable.get(0));
        }
        return open;
    }

    private Optional<CoordinatorTransaction> coordinatorView(long producerId) {
        List<String> ids = await(admin.listTransactions(new ListTransactionsOptions().filterProducerIds(Set.of(producerId))).all())
                .stream().map(TransactionListing::transactionalId).toList();
        if (ids.isEmpty()) {
            return Optional.empty();
        }
        Map<String, TransactionDescription> described = await(admin.describeTransactions(ids).all());
        return described.entrySet().stream()
                .filter(e -> e.getValue().producerId() == producerId)
                .findFirst()
                .map(e -> new CoordinatorTransaction(e.getKey(), e.getValue().state(),
                        (short) e.getValue().producerEpoch(),
                        e.getValue().topicPartitions().stream().collect(Collectors.toUnmodifiableSet()),
                        e.getValue().transactionTimeoutMs()));
    }

    private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(CALL_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted looking for hanging transactions", e);
        } catch (ExecutionException e) {
            throw new KafkaException("looking for hanging transactions failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("looking for hanging transactions timed out after " + CALL_TIMEOUT_S + " s", e);
        }
    }
}
