package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EngineSpeedTest {

    /** A run as an engine whose speed {@code truth} is would time it: waiting for the owed tokens ahead, then its own prefill. */
    private static FinishedRun run(TtftModel truth, SplittableRandom random, String pool) {
        int prompt = random.nextInt(200, 30_000);
        int cached = random.nextBoolean() ? (int) (prompt * random.nextDouble(0.2, 0.9)) : 0;
        long ahead = random.nextInt(4) == 0 ? random.nextInt(0, 20_000) : 0;
        int sequences = random.nextInt(1, 100);
        long context = (long) sequences * random.nextInt(500, 8_000);
        double hitRate = 0.3;
        double decodePerStep = truth.decodeMsPerStep(sequences, context);
        long uncachedAhead = Math.round(ahead * (1 - hitRate));
        long tokens = prompt - cached + uncachedAhead;
        double ttft = truth.steps(tokens) * (truth.t0Ms() + decodePerStep) + truth.aMsPerToken() * tokens
                + truth.kMsPerTokenPair() * (prompt - cached) * (cached + (prompt - cached) / 2.0) + random.nextDouble(0, 5);
        int completion = random.nextInt(2, 500);
        double decode = (completion - 1) * (truth.t0Ms() + decodePerStep) * random.nextDouble(0.95, 1.05);
        return new FinishedRun(pool, prompt, cached, completion, Math.round(ttft), Math.round(decode), ahead, 0, sequences, context,
                hitRate);
    }

    @Test
    void shouldLearnAnEnginesSpeedFromNothingCloseEnoughToEstimateItsPrefills() {
        EngineSpeed speed = EngineSpeed.fromNothing(RoutingSettings.DEFAULT_PREFILL_TOKENS_PER_SECOND);
        TtftModel truth = TtftModel.LLAMA_8B_H100;
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 2_000; i++) {
            speed.observe(run(truth, random, "p"));
        }
        TtftModel learnt = speed.current();
        for (int tokens : new int[] {500, 4_000, 16_000, 60_000}) {
            assertThat(learnt.prefillMs(tokens, 0)).as("%d tokens", tokens)
                    .isCloseTo(truth.prefillMs(tokens, 0), within(0.15 * truth.prefillMs(tokens, 0) + 5));
        }
        assertThat(learnt.decodeMsPerStep(64, 64 * 4_000)).isCloseTo(truth.decodeMsPerStep(64, 64 * 4_000), within(3.0));
    }

    @Test
    void shouldCorrectAWrongProfileAndFollowAnEngineThatSlowsDown() {
        EngineSpeed speed = EngineSpeed.from(TtftModel.LLAMA_70B_4XH100);
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 2_000; i++) {
            speed.observe(run(TtftModel.LLAMA_8B_H100, random, "p"));
        }
        double eightB = TtftModel.LLAMA_8B_H100.prefillMs(8_000, 0);
        assertThat(speed.current().prefillMs(8_000, 0)).isCloseTo(eightB, within(0.15 * eightB));

        TtftModel halfSpeed = new TtftModel(13.0, 0.040, 2.6e-6, 0.0088, 1.52e-4, 8_192, TtftModel.LLAMA_8B_H100.hMsPerHostToken());
        for (int i = 0; i < 2 * EngineSpeed.MEMORY_RUNS; i++) {
            speed.observe(run(halfSpeed, random, "p"));
        }
        assertThat(speed.current().prefillMs(8_000, 0)).isCloseTo(halfSpeed.prefillMs(8_000, 0), within(0.15 * 2 * eightB));
    }

    @Test
    void shouldLearnEachPoolApartAndEstimateAnUnnamedPoolByItsRegion() {
        EngineSpeeds speeds = new EngineSpeeds(null, RoutingSettings.DEFAULT_PREFILL_TOKENS_PER_SECOND);
        SplittableRandom random = new SplittableRandom(9);
        TtftModel slow = new TtftModel(16.4, 0.048, 4.1e-6, 0.014, 1.25e-4, 2_048, 0.01);
        for (int i = 0; i < 1_500; i++) {
            speeds.observe(run(TtftModel.LLAMA_8B_H100, random, "h100"));
            speeds.observe(run(slow, random, "a100"));
        }
        WorkerSnapshot h100 = WorkerSnapshot.builder("w1", "us-east").pool("h100").build();
        WorkerSnapshot a100 = WorkerSnapshot.builder("w2", "us-east").pool("a100").build();
        WorkerSnapshot unnamed = WorkerSnapshot.builder("w3", "eu-west").build();
        assertThat(speeds.modelFor(a100).prefillMs(4_000, 0)).isGreaterThan(1.8 * speeds.modelFor(h100).prefillMs(4_000, 0));
        assertThat(EngineSpeeds.poolOf(unnamed)).isEqualTo("region:eu-west");
        assertThat(speeds.pools()).containsOnlyKeys("h100", "a100");
    }
}
