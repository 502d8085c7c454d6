package dev.verbatim.bench.rpc;

import dev.verbatim.bench.harness.ChildProcess;
import dev.verbatim.bench.harness.FloorCase;
import dev.verbatim.bench.harness.LatencyHistogram;
import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rpc suite's turns: contenders whose processes all stay up take turns case by case, round after
 * round, in a rotating order (the spinning shm floor's server paused and resumed around each turn),
 * a contender that fails is left out while the others go on, nothing is left behind; and a ratio is
 * the median of the ratios within a round, not the ratio of the medians. No timing.
 */
@Timeout(60)
class RpcTurnsTest {

    @AfterEach
    void noneLeft() {
        ChildProcess.closeAll();
        assertEquals(0, ChildProcess.liveCount());
    }

    /** A contender no child can find (its id is not in the registry): its server fails to start. */
    private static final RpcContender MISSING = new RpcContender() {
        @Override
        public String name() {
            return "missing";
        }

        @Override
        public Medium medium() {
            return Medium.SHM;
        }

        @Override
        public Set<RpcCase> cases() {
            return EnumSet.of(RpcCase.NULL);
        }

        @Override
        public Server server(Session session) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Client client(Session session) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void contendersTakeTurnsRoundAfterRound() throws Exception {
        RpcContender shmFloor = RpcContenders.get("shm/floor");
        RpcContender tcpFloor = RpcContenders.get("tcp/floor");
        List<RpcContender> cs = List.of(shmFloor, MISSING, tcpFloor);
        RpcBench.Plan plan = new RpcBench.Plan(true, 3, 10, 20, false);
        Path base = ScratchDir.privateDir();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<RpcBench.Turn> log = new ArrayList<>();
        List<RpcBench.Result> rs;
        try {
            rs = RpcBench.runTurns(cs, plan, base, new PrintStream(err, true, StandardCharsets.UTF_8), log);
            assertEquals(0, ChildProcess.liveCount(), "children left behind");
        } finally {
            ScratchDir.deleteTree(base);
        }
        assertFalse(Files.exists(base), "session files left behind");
        assertEquals(3, rs.size());
        assertNotNull(rs.get(1).error(), "the missing contender failed");
        List<String> live = List.of("shm/floor", "tcp/floor");
        for (RpcBench.Result r : List.of(rs.get(0), rs.get(2))) {
            assertNull(r.error(), r.id() + ": " + err);
            for (RpcCase c : RpcContenders.get(r.id()).cases()) {
                assertEquals(plan.rounds(), r.byCase().get(c).size(), r.id() + " turns of " + c.key());
                r.byCase().get(c).forEach(h -> assertTrue(h.count() > 0, r.id() + ": an empty turn"));
            }
        }
        // the turns: case by case; within a case round by round, each round every live contender once,
        // the order rotating (so no contender always follows the same one)
        // (the cases both floors measure; the list has a floor over shm only, and only it takes the list's turns)
        Set<RpcCase> common = tcpFloor.cases();
        assertTrue(shmFloor.cases().containsAll(common) && shmFloor.cases().contains(RpcCase.LIST_128)
                && !common.contains(RpcCase.LIST_128), shmFloor.cases() + " / " + common);
        assertEquals(List.of("shm/floor"), log.stream().filter(t -> t.rpcCase() == RpcCase.LIST_128).map(RpcBench.Turn::id)
                .distinct().toList(), log.toString());
        List<RpcBench.Turn> taken = log.stream().filter(t -> live.contains(t.id()) && common.contains(t.rpcCase())).toList();
        assertEquals(common.size() * plan.rounds() * live.size(), taken.size(), log.toString());
        int i = 0;
        for (RpcCase c : RpcCase.values()) {
            if (!common.contains(c)) {
                continue;
            }
            for (int round = 0; round < plan.rounds(); round++) {
                for (int k = 0; k < live.size(); k++) {
                    RpcBench.Turn t = taken.get(i++);
                    assertEquals(c, t.rpcCase(), log.toString());
                    assertEquals(round, t.round(), "turns not interleaved: " + log);
                    assertEquals(live.get((k + round) % live.size()), t.id(), "order not rotating: " + log);
                }
            }
        }
    }

    private static List<LatencyHistogram> turns(long... p50) {
        List<LatencyHistogram> out = new ArrayList<>();
        for (long v : p50) {
            LatencyHistogram h = new LatencyHistogram();
            for (int i = 0; i < 11; i++) {
                h.record(v);
            }
            out.add(h);
        }
        return out;
    }

    private static RpcBench.Result result(String name, List<LatencyHistogram> nullTurns) {
        Map<RpcCase, List<LatencyHistogram>> byCase = new EnumMap<>(RpcCase.class);
        byCase.put(RpcCase.NULL, nullTurns);
        return new RpcBench.Result("shm/" + name, name, Medium.SHM, Set.of(Medium.SHM), false, byCase, Map.of(), null);
    }

    @Test
    void aRatioIsTheMedianOfTheRatiosWithinARound() {
        // the host changed from round to round; verbatim/floor within the rounds: 2, 1.2, 3 -> 2.
        // The ratio of the medians (330 / 110 = 3) would mix rounds of different hosts.
        RpcBench.Run run = new RpcBench.Run("quick", 3, 20, 50, List.of(
                result("floor", turns(100, 500, 110)), result("verbatim", turns(200, 600, 330))), 1, 0, 0);
        FloorCase nul = RpcReport.jsonCases(run).getFirst();
        assertEquals("shm/null", nul.name());
        assertEquals(110, nul.results().get("floor"), 110 * 0.01, "a figure is the median of the turns");
        assertEquals(330, nul.results().get("verbatim"), 330 * 0.01);
        assertEquals(2.0, nul.ratios().get("verbatim"), 0.03, "the ratio is not the median of the within-round ratios");
        double target = RpcReport.targets(run).getFirst().measured();
        assertEquals(2.0, target, 0.03, "the target is not the median of the within-round ratios");
    }
}
