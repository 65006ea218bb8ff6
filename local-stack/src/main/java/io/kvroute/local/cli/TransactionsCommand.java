package io.kvroute.local.cli;

import io.kvroute.platform.kafka.transactions.HangingTransactionRule;
import io.kvroute.platform.kafka.transactions.HangingTransactions;
import io.kvroute.platform.kafka.transactions.HangingTransaction;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Lists, and with {@code --abort} aborts, transactions that partitions hold open although their
 * coordinator will never end them. One such transaction stalls every read_committed reader of
 * its partition (kvroute's router, workers and clients all read that way) until it is aborted.
 */
@Command(name = "transactions", mixinStandardHelpOptions = true,
        description = "Find transactions left hanging on partitions (a broker restart can leave them) and abort them with --abort.")
public final class TransactionsCommand implements Callable<Integer> {
    @Mixin
    AdminConnection connection;

    @Option(names = "--abort", description = "Abort what is found (its writes are discarded; kvroute's workers run those requests again).")
    boolean abort;

    @Option(names = "--grace-ms", defaultValue = "60000",
            description = "How long past its producer's transaction timeout, counted from its last write, a transaction must be open to count (default: ${DEFAULT-VALUE}).")
    long graceMs;

    @Option(names = "--max-timeout-ms", defaultValue = "" + HangingTransactionRule.KAFKA_DEFAULT_MAX_TRANSACTION_TIMEOUT_MS,
            description = "The broker's transaction.max.timeout.ms, assumed for a producer its coordinator does not know (default: ${DEFAULT-VALUE}).")
    long maxTimeoutMs;

    /** Exit status: 0 nothing hanging (or all of it aborted), 1 hanging transactions left. */
    @Override
    public Integer call() {
        try (Admin admin = Admin.create(connection.settings())) {
            HangingTransactions transactions = new HangingTransactions(admin,
                    new HangingTransactionRule(graceMs, maxTimeoutMs), System::currentTimeMillis);
            List<HangingTransaction> found = transactions.find();
            found.forEach(t -> System.out.println("hanging  " + t));
            if (!abort) {
                System.out.println(found.size() + " hanging transaction(s)" + (found.isEmpty() ? "" : "; --abort aborts them"));
                return found.isEmpty() ? 0 : 1;
            }
            List<HangingTransaction> aborted = transactions.abort(found);
            aborted.forEach(t -> System.out.println("aborted  " + t
                    + (t.coordinatorCommitted() ? "  (its coordinator had committed it: other partitions may keep its writes)" : "")));
            System.out.println(aborted.size() + " of " + found.size() + " hanging transaction(s) aborted");
            return transactions.find().isEmpty() ? 0 : 1;
        }
    }
}
