package io.kvroute.local.stack;

import io.kvroute.platform.kafka.transactions.HangingTransaction;
import io.kvroute.platform.kafka.transactions.HangingTransactionRule;
import io.kvroute.platform.kafka.transactions.HangingTransactions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's watch over the broker's transactions: every few seconds, aborts any transaction
 * a partition holds open that its coordinator will never end (see {@link HangingTransactionRule}
 * for when that happens). Without it one such transaction stalls every {@code read_committed}
 * reader of its partition, and a consumer group whose offsets it holds cannot start, for good.
 */
public final class HangingTransactionWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HangingTransactionWatch.class);
    private static final int FAILURES_BEFORE_WARNING = 6;

    private final Admin admin;
    private final HangingTransactions transactions;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "hanging-transaction-watch");
        t.setDaemon(true);
        return t;
    });
    private final List<HangingTransaction> aborted = new ArrayList<>();
    private int failuresInARow;
    private boolean closed;

    public HangingTransactionWatch(String bootstrapServers, Duration grace) {
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
        this.transactions = new HangingTransactions(admin,
                new HangingTransactionRule(grace.toMillis(), HangingTransactionRule.KAFKA_DEFAULT_MAX_TRANSACTION_TIMEOUT_MS), System::currentTimeMillis);
    }

    public HangingTransactionWatch start(Duration every) {
        thread.scheduleWithFixedDelay(this::sweep, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void sweep() {
        try {
            List<HangingTransaction> now = transactions.abortHanging();
            failuresInARow = 0;
            synchronized (aborted) {
                aborted.addAll(now);
            }
        } catch (RuntimeException e) {
            // the broker may be restarting: the next sweep tries again; a watch that keeps failing must be seen
            failuresInARow++;
            if (failuresInARow % FAILURES_BEFORE_WARNING == 0) {
                LOG.warn("hanging-transaction sweep failed {} times in a row, last: {}", failuresInARow, e.toString());
            } else {
                LOG.debug("hanging-transaction sweep failed: {}", e.toString());
            }
        }
    }

    /** The transactions aborted so far, with what their coordinator said of them. Complete once {@link #close()} returned. */
    public List<String> aborted() {
        synchronized (aborted) {
            return aborted.stream().map(HangingTransaction::toString).toList();
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // a sweep under way finishes (an abort it sent is recorded), no new one starts
        thread.shutdown();
        try {
            thread.awaitTermination(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admin.close(Duration.ofSeconds(5));
    }
}
