package io.kvroute.bench.trace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Generated multi-turn chat ({@code --format conversation}): sessions arrive as a Poisson stream;
 * each belongs to one of a few applications, whose system prompt every session of it starts with;
 * each turn's prompt is the previous turn's prompt, the previous answer and a new user message, and
 * it arrives once the previous answer has streamed out and the user has thought; a session has a
 * random number of turns. Deterministic for a seed.
 *
 * <p>Block ids (512-token blocks, as the other generated workloads and Mooncake) are chained the way
 * a content hash over the prefix would be: a system prompt's whole blocks are its application's;
 * every later whole block of a session's context is the session's own and keeps its id from turn to
 * turn, so turn n+1's block ids start with every whole block of turn n's prompt. A prompt's partial
 * last block is filled with the answer by the next turn, so the next turn gives that position a new
 * id (Mooncake's traces do the same).
 *
 * <p>Lengths are lognormal with the given mean (the median is lower), cut at 8x the mean; turns are
 * geometric with the given mean, cut at {@code maxTurns}; a session ends early rather than pass the
 * model's {@value #MAX_CONTEXT_TOKENS}-token context. The trace is the first {@code requests} turns by
 * arrival: sessions are generated until one starts after the latest of them, so the end of the trace
 * is not thinned by sessions that were never generated (its start ramps up over a session's length).
 */
public final class ConversationWorkload {
    public static final int BLOCK_TOKENS = 512;
    /** Llama 3.1's context window: a session that would pass it ends. */
    public static final int MAX_CONTEXT_TOKENS = 131_072;
    /** About two minutes of arrivals at the default rate, so the ramp-up (a session's length, ~20 s) is a small part. */
    public static final int DEFAULT_REQUESTS = 24_000;
    private static final long APPLICATION_ID_BASE = 4L << 40;
    private static final long SESSION_ID_BASE = 5L << 40;
    /** Id room per application's system prompt: more whole blocks than the longest system prompt allowed has. */
    private static final int MAX_SYSTEM_BLOCKS = 4096;

    /**
     * The workload's parameters.
     *
     * @param sessionsPerSecond  new sessions per second (Poisson), before load scaling
     * @param applications       applications, each with its own system prompt; a session picks one uniformly
     * @param systemPromptTokens length of every application's system prompt
     * @param meanUserTokens     mean length of a user message (lognormal)
     * @param userTokensSigma    sigma of the user message's log-length
     * @param meanAnswerTokens   mean length of an answer (lognormal)
     * @param answerTokensSigma  sigma of the answer's log-length
     * @param meanTurns          mean turns per session (geometric, at least 1)
     * @param maxTurns           turns per session at most
     * @param medianThinkSeconds median time from the end of an answer to the next user message (lognormal)
     * @param thinkSigma         sigma of the think time's log
     * @param answerMsPerToken   pace at which the generator assumes an answer streams out, to place the next turn after it
     * @param requests           turns in the trace
     * @param seed               seeds everything random
     */
    public record Spec(double sessionsPerSecond, int applications, int systemPromptTokens, double meanUserTokens,
                       double userTokensSigma, double meanAnswerTokens, double answerTokensSigma, double meanTurns,
                       int maxTurns, double medianThinkSeconds, double thinkSigma, double answerMsPerToken,
                       int requests, long seed) {
        /**
         * Sized to the default fleet, not from a trace: near saturation at load scale 1 as issue 3 defines it for
         * round-robin (p99 TTFT 18x its p50 at seed 42, p50 still 97 ms); at 110/s it is past saturation (p90 3.9 s,
         * backlog growing), at 95/s p99 is 2.2x p50 (docs/bench/conversation.md).
         */
        public static final double DEFAULT_SESSIONS_PER_SECOND = 100.0;
        /** Assumption: a handful of chat products on one fleet; no public trace gives the count. */
        public static final int DEFAULT_APPLICATIONS = 8;
        /** Puts the median prompt near the Azure conversation trace's median of 1,020 tokens (Splitwise, ISCA 2024). */
        public static final int DEFAULT_SYSTEM_PROMPT_TOKENS = 900;
        /** LMSYS-Chat-1M (Zheng et al., ICLR 2024, Table 1): 69.5 tokens per user prompt on average. */
        public static final double DEFAULT_MEAN_USER_TOKENS = 69.5;
        /** Assumption: the spread is not published; sigma 1 gives the heavy tail of pasted text. */
        public static final double DEFAULT_USER_TOKENS_SIGMA = 1.0;
        /** LMSYS-Chat-1M (Zheng et al., ICLR 2024, Table 1): 214.5 tokens per response on average. */
        public static final double DEFAULT_MEAN_ANSWER_TOKENS = 214.5;
        /** Assumption: the spread is not published; answers vary less than prompts. */
        public static final double DEFAULT_ANSWER_TOKENS_SIGMA = 0.7;
        /** LMSYS-Chat-1M (Zheng et al., ICLR 2024, Table 1): 2.0 turns per conversation on average. */
        public static final double DEFAULT_MEAN_TURNS = 2.0;
        /** Assumption: a cut far in the geometric tail (2^-31 of sessions at the default mean). */
        public static final int DEFAULT_MAX_TURNS = 32;
        /** Assumption: no public trace gives think time; 10 s to read an answer and type a short message. */
        public static final double DEFAULT_MEDIAN_THINK_SECONDS = 10.0;
        /** Assumption: mean 16.5 s at median 10 s, a long tail of users who step away. */
        public static final double DEFAULT_THINK_SIGMA = 1.0;
        /** Assumption: 50 tokens/s, a streamed answer's pace on a busy 8B server. */
        public static final double DEFAULT_ANSWER_MS_PER_TOKEN = 20.0;

        public static Spec defaults(int requests, long seed) {
            return new Spec(DEFAULT_SESSIONS_PER_SECOND, DEFAULT_APPLICATIONS, DEFAULT_SYSTEM_PROMPT_TOKENS,
                    DEFAULT_MEAN_USER_TOKENS, DEFAULT_USER_TOKENS_SIGMA, DEFAULT_MEAN_ANSWER_TOKENS,
                    DEFAULT_ANSWER_TOKENS_SIGMA, DEFAULT_MEAN_TURNS, DEFAULT_MAX_TURNS, DEFAULT_MEDIAN_THINK_SECONDS,
                    DEFAULT_THINK_SIGMA, DEFAULT_ANSWER_MS_PER_TOKEN, requests, seed);
        }

        public Spec {
            positive("sessionsPerSecond", sessionsPerSecond);
            atLeast("applications", applications, 1);
            atLeast("systemPromptTokens", systemPromptTokens, 0);
            // so a session's first turn always fits the context (lengths are cut at 8x their mean)
            atMost("systemPromptTokens", systemPromptTokens, MAX_CONTEXT_TOKENS / 4);
            atLeast("meanUserTokens", meanUserTokens, 1);
            atMost("meanUserTokens", meanUserTokens, MAX_CONTEXT_TOKENS / 32);
            notNegative("userTokensSigma", userTokensSigma);
            atLeast("meanAnswerTokens", meanAnswerTokens, 1);
            atMost("meanAnswerTokens", meanAnswerTokens, MAX_CONTEXT_TOKENS / 32);
            notNegative("answerTokensSigma", answerTokensSigma);
            atLeast("meanTurns", meanTurns, 1);
            atLeast("maxTurns", maxTurns, 1);
            positive("medianThinkSeconds", medianThinkSeconds);
            notNegative("thinkSigma", thinkSigma);
            notNegative("answerMsPerToken", answerMsPerToken);
            atLeast("requests", requests, 0);
        }

        public Spec withSessionsPerSecond(double value) {
            return new Spec(value, applications, systemPromptTokens, meanUserTokens, userTokensSigma, meanAnswerTokens,
                    answerTokensSigma, meanTurns, maxTurns, medianThinkSeconds, thinkSigma, answerMsPerToken, requests, seed);
        }

        private static void positive(String name, double value) {
            if (!(value > 0) || Double.isInfinite(value)) {
                throw invalid(name, value, "a finite number > 0");
            }
        }

        private static void notNegative(String name, double value) {
            if (!(value >= 0) || Double.isInfinite(value)) {
                throw invalid(name, value, "a finite number >= 0");
            }
        }

        private static void atLeast(String name, double value, double min) {
            if (!(value >= min) || Double.isInfinite(value)) {
                throw invalid(name, value, "at least " + (min == Math.rint(min) ? Long.toString((long) min) : min));
            }
        }

        private static void atMost(String name, double value, int max) {
            if (value > max) {
                throw invalid(name, value, "at most " + max);
            }
        }

        private static IllegalArgumentException invalid(String name, double value, String expected) {
            String shown = value == Math.rint(value) && !Double.isInfinite(value) ? Long.toString((long) value) : Double.toString(value);
            return new IllegalArgumentException("conversation workload: " + name + " must be " + expected + ", was " + shown);
        }
    }

    private ConversationWorkload() {
    }

    public static List<TraceRequest> generate(Spec spec) {
        List<Turn> turns = new ArrayList<>();
        for (List<TraceRequest> session : sessions(spec)) {
            for (TraceRequest turn : session) {
                turns.add(new Turn(turn.arrivalMs(), turns.size(), turn));
            }
        }
        turns.sort(Comparator.comparingLong(Turn::arrivalMs).thenComparingInt(Turn::order));
        return turns.stream().limit(spec.requests()).map(Turn::request).toList();
    }

    /** Every generated session, each its turns in order, in the order the sessions start; the trace is drawn from these. */
    static List<List<TraceRequest>> sessions(Spec spec) {
        SplittableRandom random = new SplittableRandom(spec.seed());
        List<List<TraceRequest>> sessions = new ArrayList<>();
        int systemBlocks = spec.systemPromptTokens() / BLOCK_TOKENS;
        long nextSessionBlock = SESSION_ID_BASE;
        double sessionStartMs = 0;
        // the latest of the earliest `requests` arrivals so far: a session starting after it cannot change the trace
        PriorityQueue<Long> earliest = new PriorityQueue<>(Comparator.reverseOrder());
        while (spec.requests() > 0) {
            sessionStartMs += exponential(random) * 1000.0 / spec.sessionsPerSecond();
            if (earliest.size() == spec.requests() && (long) sessionStartMs > earliest.peek()) {
                break;
            }
            int application = random.nextInt(spec.applications());
            int sessionTurns = geometric(random, spec.meanTurns(), spec.maxTurns());
            List<Long> wholeBlocks = new ArrayList<>();
            for (int b = 0; b < systemBlocks; b++) {
                wholeBlocks.add(APPLICATION_ID_BASE + (long) application * MAX_SYSTEM_BLOCKS + b);
            }
            int context = spec.systemPromptTokens();
            double arrivalMs = sessionStartMs;
            List<TraceRequest> session = new ArrayList<>();
            sessions.add(session);
            for (int t = 0; t < sessionTurns; t++) {
                int user = lognormal(random, spec.meanUserTokens(), spec.userTokensSigma());
                int answer = lognormal(random, spec.meanAnswerTokens(), spec.answerTokensSigma());
                double thinkMs = Math.exp(Math.log(spec.medianThinkSeconds()) + spec.thinkSigma() * gaussian(random)) * 1000.0;
                int input = context + user;
                if (input > MAX_CONTEXT_TOKENS || (long) input + answer > MAX_CONTEXT_TOKENS) {
                    break;
                }
                int blocks = (input + BLOCK_TOKENS - 1) / BLOCK_TOKENS;
                long[] ids = new long[blocks];
                for (int b = 0; b < blocks; b++) {
                    ids[b] = b < wholeBlocks.size() ? wholeBlocks.get(b) : nextSessionBlock++;
                }
                for (int b = wholeBlocks.size(); b < input / BLOCK_TOKENS; b++) {
                    wholeBlocks.add(ids[b]);
                }
                session.add(new TraceRequest((long) arrivalMs, input, answer, ids, BLOCK_TOKENS, "app-" + application, null, null));
                earliest.add((long) arrivalMs);
                if (earliest.size() > spec.requests()) {
                    earliest.poll();
                }
                context = input + answer;
                arrivalMs += Math.max(1.0, answer * spec.answerMsPerToken() + thinkMs);
            }
        }
        return sessions;
    }

    private record Turn(long arrivalMs, int order, TraceRequest request) {
    }

    private static double exponential(SplittableRandom random) {
        return -Math.log(1 - random.nextDouble());
    }

    /** At least 1, mean {@code mean} (before the cut at {@code max}). */
    private static int geometric(SplittableRandom random, double mean, int max) {
        double more = 1 - 1 / mean; // chance of another turn
        int turns = 1;
        while (turns < max && random.nextDouble() < more) {
            turns++;
        }
        return turns;
    }

    /** Lognormal with mean {@code mean} and log-sigma {@code sigma}, at least 1 and at most 8x the mean. */
    private static int lognormal(SplittableRandom random, double mean, double sigma) {
        double mu = Math.log(mean) - sigma * sigma / 2;
        double value = Math.exp(mu + sigma * gaussian(random));
        return (int) Math.max(1, Math.min(Math.round(value), Math.round(8 * mean)));
    }

    /** A standard normal draw (Box-Muller, one of the pair), from the seeded stream only. */
    private static double gaussian(SplittableRandom random) {
        double u = 1 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
