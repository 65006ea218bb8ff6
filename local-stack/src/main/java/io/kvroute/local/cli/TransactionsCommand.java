package io.kvroute.local.cli;

import io.kvroute.local.stack.HangingTransactionWatch;
import io.kvroute.platform.kafka.transactions.HangingTransactionRule;
import io.kvroute.platform.kafka.transactions.HangingTransactions;
import io.kvroute.platform.kafka.transactions.OpenTransaction;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Lists, and with {@code --abort} aborts, transactions that partitions hold open although their
 * coordinator will never end them. One such transaction stalls every read_committed reader of
 * its partition (kvroute's router, workers and clients all read that way) until it is aborted.
 */
@Command(name = "transactions", mixinStandardHelpOptions = true,
        description = "Find transactions left hanging on partitions (a broker restart can leave them) and abort them with --abort.")
public final class TransactionsCommand implements Callable<Integer> {
    @Option(names = "--bootstrap-servers", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrapServers;

    @Option(names = "--abort", description = "Abort what is found (its writes are discarded; kvroute's workers run those requests again).")
    boolean abort;

    @Option(names = "--grace-ms", defaultValue = "60000",
            description = "How long past its producer's transaction timeout a transaction must be open to count (default: ${DEFAULT-VALUE}).")
    long graceMs;

    @Override
    public Integer call() {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
            HangingTransactions transactions = new HangingTransactions(admin,
                    new HangingTransactionRule(graceMs, HangingTransactionWatch.BROKER_MAX_TRANSACTION_TIMEOUT_MS), System::currentTimeMillis);
            List<OpenTransaction> found = abort ? transactions.abortHanging() : transactions.find();
            found.forEach(t -> System.out.println((abort ? "aborted  " : "hanging  ") + t));
            System.out.println(found.size() + (abort ? " hanging transaction(s) aborted" : " hanging transaction(s) found"));
            return 0;
        }
    }
}
