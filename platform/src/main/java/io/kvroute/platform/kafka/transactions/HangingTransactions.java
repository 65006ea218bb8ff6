package io.kvroute.platform.kafka.transactions;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
 * and aborts them on request, with the Admin calls Kafka's {@code kafka-transactions.sh
 * find-hanging} and {@code abort} use (DescribeProducers on every partition, the coordinator's
 * view by producer id, WriteTxnMarkers through {@code abortTransaction}). Unlike that tool it does
 * not wait the broker's longest transaction timeout for every producer: it asks the coordinator
 * for the producer's own timeout (see {@link HangingTransactionRule}), and just before aborting
 * it reads the partition again and aborts only if the very same transaction is still open.
 *
 * <p>An abort discards what the transaction wrote to that partition. When nothing of the
 * transaction was committed anywhere, that is clean: for kvroute's workers the results and the
 * offsets that free them go back together and the requests run again. When the coordinator had
 * committed it and some partitions did get their commit markers, aborting the rest splits it
 * (the coordinator's state is reported with each abort for that reason); Kafka gives clients no
 * way to write the missing commit markers instead, and leaving the partition open stalls every
 * {@code read_committed} reader of it for good.
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
    public List<HangingTransaction> find() {
        List<OpenTransaction> open = openTransactions();
        Map<Long, Optional<CoordinatorTransaction>> coordinators = new HashMap<>();
        Set<Long> unreachable = new HashSet<>();
        long now = clock.getAsLong();
        List<HangingTransaction> hanging = new ArrayList<>();
        for (OpenTransaction o : open) {
            if (unreachable.contains(o.producerId())) {
                continue;
            }
            Optional<CoordinatorTransaction> coordinator;
            try {
                coordinator = coordinators.computeIfAbsent(o.producerId(), this::coordinatorView);
            } catch (KafkaException e) {
                // without the coordinator's word nothing is called hanging; asked once per look-up
                LOG.warn("could not ask the coordinator about producer {}: {}", o.producerId(), e.toString());
                unreachable.add(o.producerId());
                continue;
            }
            if (rule.isHanging(o, coordinator, now)) {
                hanging.add(new HangingTransaction(o, coordinator));
            }
        }
        return hanging;
    }

    /** Aborts each of {@link #find()}'s transactions that is still open when its turn comes; returns those aborted. */
    public List<HangingTransaction> abortHanging() {
        return abort(find());
    }

    /** Aborts each of {@code hanging} that is still the same open transaction; returns those aborted. */
    public List<HangingTransaction> abort(List<HangingTransaction> hanging) {
        List<HangingTransaction> aborted = new ArrayList<>();
        for (HangingTransaction h : hanging) {
            OpenTransaction o = h.open();
            try {
                if (!stillOpen(o)) {
                    LOG.info("not aborting {}: it is no longer the transaction open there", o);
                    continue;
                }
                await(admin.abortTransaction(new AbortTransactionSpec(o.partition(), o.producerId(), o.producerEpoch(),
                        o.coordinatorEpoch())).all());
                LOG.warn("aborted a hanging transaction: {}{}", h,
                        h.coordinatorCommitted() ? "; its coordinator had committed it, so its other partitions may keep what it wrote" : "");
                aborted.add(h);
            } catch (KafkaException e) {
                LOG.warn("could not abort the hanging transaction {}: {}", h, e.toString());
            }
        }
        return aborted;
    }

    private boolean stillOpen(OpenTransaction o) {
        DescribeProducersResult.PartitionProducerState now = await(admin.describeProducers(List.of(o.partition())).partitionResult(o.partition()));
        return openIn(o.partition(), now).stream().anyMatch(n -> n.producerId() == o.producerId()
                && n.producerEpoch() == o.producerEpoch()
                && n.startOffset() == o.startOffset());
    }

    /** The transactions open on one partition, as its producers' states describe them. */
    private static List<OpenTransaction> openIn(TopicPartition tp, DescribeProducersResult.PartitionProducerState description) {
        List<OpenTransaction> open = new ArrayList<>();
        for (ProducerState p : description.activeProducers()) {
            if (p.currentTransactionStartOffset().isPresent()) {
                open.add(new OpenTransaction(tp, p.producerId(), (short) p.producerEpoch(),
                        p.coordinatorEpoch().orElse(0), p.currentTransactionStartOffset().getAsLong(), p.lastTimestamp()));
            }
        }
        return open;
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
            open.addAll(openIn(tp, description));
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
