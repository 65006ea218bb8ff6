package io.kvroute.bench.suite;

import io.kvroute.bench.trace.ConversationWorkload;
import io.kvroute.bench.trace.TenantWorkload;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.bench.trace.TenantResidency;
import io.kvroute.bench.trace.Traces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * One workload of the suite: its requests for a seed, before load scaling. The real traces are read once (a seed
 * changes only the simulator's randomness for them); the generated workloads are drawn per seed.
 *
 * @param name       what the verdict table calls it
 * @param requests   the requests for a seed, in arrival order
 * @param hasPrefixes whether its prompts carry prefix information (else no hit-rate criterion)
 */
public record SuiteWorkload(String name, LongFunction<List<TraceRequest>> requests, boolean hasPrefixes) {
    /** The Azure traces' first requests the suite runs: the whole conversation trace takes minutes a policy. */
    public static final int AZURE_REQUESTS = 6_000;
    /** Turns of the conversation workload per run: about a minute of arrivals at its default session rate. */
    public static final int CONVERSATION_REQUESTS = 12_000;
    public static final int TENANT_REQUESTS = 3_000;
    public static final double TENANT_RATE = 38.0;

    /**
     * The five workloads: the Mooncake trace under {@code traceDir/mooncake_fast25_synthetic}, the two Azure traces under
     * {@code traceDir/azure_llm_inference_2023} (each left out, with a note in {@code skipped}, when its file is not
     * there), the generated tenants and conversations.
     */
    public static List<SuiteWorkload> all(Path traceDir, List<String> skipped) {
        List<SuiteWorkload> out = new ArrayList<>();
        Path mooncake = traceDir.resolve("mooncake_fast25_synthetic/synthetic_trace.jsonl");
        addTrace(out, skipped, "mooncake", mooncake, "mooncake", Integer.MAX_VALUE, true);
        Path azure = traceDir.resolve("azure_llm_inference_2023");
        addTrace(out, skipped, "azure-code", azure.resolve("AzureLLMInferenceTrace_code.csv"), "azure", AZURE_REQUESTS, false);
        addTrace(out, skipped, "azure-conv", azure.resolve("AzureLLMInferenceTrace_conv.csv"), "azure", AZURE_REQUESTS, false);
        out.add(new SuiteWorkload("tenants", seed -> TenantWorkload.generate(
                TenantWorkload.Spec.llmdDefaults(TENANT_REQUESTS, TENANT_RATE, seed), TenantResidency.NONE), true));
        out.add(new SuiteWorkload("conversation", seed -> ConversationWorkload.generate(
                ConversationWorkload.Spec.defaults(CONVERSATION_REQUESTS, seed)), true));
        return out;
    }

    private static void addTrace(List<SuiteWorkload> out, List<String> skipped, String name, Path file, String format, int limit,
                                 boolean hasPrefixes) {
        if (!Files.isReadable(file)) {
            skipped.add(name + " (no " + file + ")");
            return;
        }
        List<TraceRequest> trace = Traces.load(file, format, limit);
        out.add(new SuiteWorkload(name, seed -> trace, hasPrefixes));
    }
}
