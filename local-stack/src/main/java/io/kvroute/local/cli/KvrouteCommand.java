package io.kvroute.local.cli;

import io.kvroute.bench.BenchCommand;
import io.kvroute.ingress.cli.CancelCommand;
import io.kvroute.ingress.cli.CollectCommand;
import io.kvroute.ingress.cli.DecisionsCommand;
import io.kvroute.ingress.cli.SubmitCommand;
import io.kvroute.local.chaos.ChaosCommand;
import io.kvroute.local.console.ConsoleCommand;
import io.kvroute.local.demo.DemoCommand;
import io.kvroute.local.loadtest.LoadtestCommand;
import io.kvroute.local.up.UpCommand;
import io.kvroute.router.RouterApp;
import io.kvroute.worker.WorkerApp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The {@code kvroute} command: one entry point for every part, so the script stays trivial. */
@Command(name = "kvroute", mixinStandardHelpOptions = true, version = "kvroute 0.1.0",
        description = "Load balancer for LLM inference across multi-region GPU pools, on Apache Kafka.",
        subcommands = {
            DemoCommand.class,
            UpCommand.class,
            ChaosCommand.class,
            BenchCommand.class,
            LoadtestCommand.class,
            KvrouteCommand.Router.class,
            KvrouteCommand.Worker.class,
            TopicsCommand.class,
            AclsCommand.class,
            UsageCommand.class,
            TransactionsCommand.class,
            SubmitCommand.class,
            CollectCommand.class,
            DecisionsCommand.class,
            ConsoleCommand.class,
            CancelCommand.class,
        })
public final class KvrouteCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        CommandLine.usage(this, System.out);
        return 0;
    }

    public static void main(String[] args) {
        int status = new CommandLine(new KvrouteCommand()).execute(args);
        System.exit(status);
    }

    static String[] withConfig(String config, List<String> settings) {
        List<String> args = new ArrayList<>();
        if (config != null) {
            args.add("--config");
            args.add(config);
        }
        args.addAll(settings);
        return args.toArray(String[]::new);
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "-");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("cannot read this host's name for the default --id; give --id", e);
        }
    }

    private static void addSetting(List<String> settings, String key, String value) {
        if (value != null) {
            settings.add(key + "=" + value);
        }
    }

    @Command(name = "router", description = "Run a router instance: [--config FILE] [key=value ...] (every setting: docs/settings.md).")
    static final class Router implements Callable<Integer> {
        @Option(names = "--config", description = "A properties file of settings.")
        String config;

        @Parameters(arity = "0..*", description = "key=value settings; they override the file and KVROUTE_* environment variables")
        List<String> settings = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            RouterApp.main(withConfig(config, settings));
            return 0;
        }
    }

    @Command(name = "worker", description = "Run a worker: [--engine sim|openai --endpoint URL --model NAME --region R --id ID] "
            + "[--config FILE] [key=value ...] (every setting: docs/settings.md).")
    static final class Worker implements Callable<Integer> {
        @Option(names = "--config", description = "A properties file of settings.")
        String config;

        @Option(names = "--engine", description = "sim (simulated GPU) or openai (an OpenAI-compatible server): worker.engine.")
        String engine;

        @Option(names = "--endpoint", description = "The server's base URL, e.g. http://127.0.0.1:8000: worker.openai.endpoint.")
        String endpoint;

        @Option(names = "--model", description = "The model the server serves (and the worker advertises): worker.models, worker.openai.model.")
        String model;

        @Option(names = "--region", description = "This worker's region: worker.region.")
        String region;

        @Option(names = "--id", description = "This worker's id, stable across restarts so a restart fences its predecessor "
                + "(default: <region>-<host name>; give one per worker when several share a host): worker.id.")
        String id;

        @Parameters(arity = "0..*", description = "key=value settings; they override the file and KVROUTE_* environment variables")
        List<String> settings = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            List<String> all = new ArrayList<>();
            addSetting(all, "worker.engine", engine);
            addSetting(all, "worker.openai.endpoint", endpoint);
            addSetting(all, "worker.models", model);
            addSetting(all, "worker.openai.model", model);
            addSetting(all, "worker.region", region);
            addSetting(all, "worker.id", id != null ? id : region != null ? region + "-" + hostName() : null);
            all.addAll(settings);
            WorkerApp.main(withConfig(config, all));
            return 0;
        }
    }
}
