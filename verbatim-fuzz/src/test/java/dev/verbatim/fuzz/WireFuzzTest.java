package dev.verbatim.fuzz;

import dev.verbatim.wire.MessageDescriptor;
import dev.verbatim.wire.WireFormatException;
import dev.verbatim.wire.WireReader;
import dev.verbatim.wire.WireWriter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The validator fuzz campaign ({@link Campaign}) at a fixed seed, as part of the test suite: this module's tests run
 * in the same build right after wire's, so every change to wire is fuzzed.
 */
class WireFuzzTest {
    private static final long SEED = 0x5EED_F022L;

    /**
     * 200,000 mutated and random messages: validate throws nothing but WireFormatException, never hangs, allocates a
     * bounded amount; accepted messages respect the limits and read the same through views and materialized; changed
     * after validation, they fail with nothing but WireFormatException.
     */
    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void twoHundredThousandMutatedAndRandomMessages() {
        CampaignResult r = Campaign.run(SEED, 200_000, Long.MAX_VALUE);
        System.out.print(r.summary());
        assertEquals(List.of(), r.failures(), r::summary);
        assertEquals(0, r.failureCount(), r::summary);
        assertEquals(200_000, r.iterations(), "every iteration ran");
        assertEquals(r.iterations(), r.accepted() + r.rejected());
        assertEquals(r.iterations(), r.mutated() + r.random());
        assertTrue(r.random() > 0 && r.mutated() > 0);
        assertTrue(r.accepted() > 0, "some mutated messages are still valid, so the readers are exercised");
        assertTrue(r.rejected() > 0);
        long readFully = r.accepted() - r.nullRoots() - r.unreadableRoots() - r.recordCycles();
        assertTrue(readFully > 1000, "accepted messages read through views and materialized: " + readFully);
        assertTrue(r.rejectedByRule().size() >= 15, "many different rules are broken: " + r.rejectedByRule().keySet());
        assertEquals(r.rejected(), r.rejectedByRule().values().stream().mapToLong(Long::longValue).sum());
        assertTrue(r.scribbled() > 1000, "valid messages changed after validation and read again: " + r.scribbled());
        if (r.maxValidateAllocation() >= 0) assertTrue(r.maxValidateAllocation() <= MessageOracle.VALIDATE_ALLOCATION_BUDGET);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theSameSeedGivesTheSameCampaign() {
        CampaignResult a = Campaign.run(42, 3000, Long.MAX_VALUE, 2, Path.of("target", "fuzz"));
        CampaignResult b = Campaign.run(42, 3000, Long.MAX_VALUE, 1, Path.of("target", "fuzz"));
        assertEquals(a.rejectedByRule(), b.rejectedByRule(), "the outcome of each iteration depends on (seed, iteration) only");
        assertEquals(a.accepted(), b.accepted());
        assertEquals(a.recordCycles(), b.recordCycles());
        assertArrayEquals(Campaign.makeCase(Corpus.pool(42), 42, 1234).bytes(),
                Campaign.makeCase(Corpus.pool(42), 42, 1234).bytes());
    }

    /**
     * Messages whose counts and lengths claim far more than their bytes: each is rejected, and validate allocates
     * a small constant for it (nothing in proportion to a claimed count or length).
     */
    @Test
    void hugeClaimsAreRejectedWithoutAllocatingForThem() {
        List<byte[]> claims = new ArrayList<>();
        byte[] valid = new WireWriter().toByteArray(new FuzzTypes.Holder(null, null, null, "x", new String[] {"a", "b"}, null,
                FuzzTypes.Color.RED, null, null, null, null, null, null, null, null, null, List.of(1, 2, 3), 7L, null));
        MessageLayout l = MessageLayout.of(valid);
        int[] counts = {MessageOracle.LIMITS.maxObjects(), MessageOracle.LIMITS.maxObjects() + 1, Integer.MAX_VALUE, -1};
        for (int n : counts) {
            byte[] b = valid.clone();
            MessageLayout.putInt(b, MessageDescriptor.OBJECT_COUNT_OFFSET, n);
            claims.add(b);
        }
        for (int t : new int[] {MessageOracle.LIMITS.maxTypes(), 0xFFFF}) {
            byte[] b = valid.clone();
            b[MessageDescriptor.TYPE_COUNT_OFFSET] = (byte) t;
            b[MessageDescriptor.TYPE_COUNT_OFFSET + 1] = (byte) (t >>> 8);
            claims.add(b);
        }
        for (int i = 0; i < l.objects(); i++) { // every object's first word: an array or string length, or a field
            int o = l.objectStart(valid, i);
            for (int v : new int[] {Integer.MAX_VALUE, 0x7FFF_FFF0, 0x4000_0000, 0x8000_0000 | 0x3FFF_FFFF, l.tail() - o, (l.tail() - o) / 4 + 1}) {
                byte[] b = valid.clone();
                MessageLayout.putInt(b, o, v);
                claims.add(b);
            }
        }
        WireReader reader = new WireReader(MessageOracle.LIMITS);
        MessageOracle checker = new MessageOracle(reader, new Campaign.Stats());
        for (int i = 0; i < claims.size(); i++) {
            byte[] b = claims.get(i);
            if (i < counts.length + 2) { // the header's counts: never backed by the bytes
                assertThrows(WireFormatException.class, () -> reader.validate(MessageOracle.nativeCopy(b)), "count claim " + i);
            }
            // Rejected, or (a claim that happened to land on a plain field) accepted and readable in full.
            assertDoesNotThrow(() -> checker.check(b), "claim " + i);
            long used = MessageOracle.validateAllocation(b);
            // a small constant, and the copy of the object table (at most the message's length)
            if (used >= 0) assertTrue(used <= (16 << 10) + MessageOracle.tableCopyBytes(b), "validate allocated " + used + " bytes for a " + b.length + "-byte message");
        }
        assertTrue(claims.size() > counts.length + 2 + l.objects());
    }

    /**
     * The bounded-heap check: claims of the largest counts and lengths, validated (and read, if a claim landed on a
     * plain field and the message stayed valid) in a JVM with a 32 MiB heap and limits that allow every count.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aMessageClaimingTheMaximumValidatesInASmallHeap() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        assumeTrue(Files.isExecutable(Path.of(java)));
        Process p = new ProcessBuilder(java, "-Xmx32m", "-cp", System.getProperty("java.class.path"), SmallHeap.class.getName())
                .redirectErrorStream(true).start();
        boolean done = p.waitFor(50, TimeUnit.SECONDS);
        if (!done) p.destroyForcibly();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, "the small-heap JVM finished: " + output);
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("all claims rejected or read"), output);
    }

    /** Runs in a JVM with a 32 MiB heap: messages claiming 2^31 objects, 64k types or 2 GiB arrays are rejected, not allocated for. */
    static final class SmallHeap {
        public static void main(String[] args) {
            WireReader reader = new WireReader(dev.verbatim.wire.WireLimits.DEFAULT.withMaxTypes(0xFFFF).withMaxObjects(Integer.MAX_VALUE));
            byte[] valid = new WireWriter().toByteArray(new FuzzTypes.Holder(null, null, null, "x", null, null, null, null, null,
                    null, null, null, null, null, null, null, List.of(1, 2, 3), 7L, null));
            MessageLayout l = MessageLayout.of(valid);
            List<byte[]> claims = new ArrayList<>();
            for (int n : new int[] {Integer.MAX_VALUE, Integer.MAX_VALUE - 1, 1 << 30}) {
                byte[] b = valid.clone();
                MessageLayout.putInt(b, MessageDescriptor.OBJECT_COUNT_OFFSET, n);
                claims.add(b);
            }
            byte[] types = valid.clone();
            types[MessageDescriptor.TYPE_COUNT_OFFSET] = (byte) 0xFF;
            types[MessageDescriptor.TYPE_COUNT_OFFSET + 1] = (byte) 0xFF;
            claims.add(types);
            for (int i = 0; i < l.objects(); i++) {
                byte[] b = valid.clone();
                MessageLayout.putInt(b, l.objectStart(valid, i), Integer.MAX_VALUE);
                claims.add(b);
            }
            MessageOracle checker = new MessageOracle(reader, new Campaign.Stats());
            for (int i = 0; i < claims.size(); i++) {
                MessageOracle.Outcome o = checker.check(claims.get(i)); // throws (exit 1) if anything but a rejection escapes
                if (i < 4 && o != MessageOracle.Outcome.REJECTED) {
                    System.out.println("accepted count claim " + i);
                    System.exit(3);
                }
            }
            System.out.println("all claims rejected or read: " + claims.size());
        }
    }

    /** The checks themselves classify valid, invalid and valid-but-unmaterializable messages. */
    @Test
    void theChecksClassifyValidInvalidAndRecordCycleMessages(@TempDir Path dir) {
        Campaign.Stats stats = new Campaign.Stats();
        MessageOracle checker = new MessageOracle(new WireReader(MessageOracle.LIMITS), stats);
        byte[] valid = new WireWriter().toByteArray(new FuzzTypes.Chain(0x0707, new FuzzTypes.Chain(0x0808, null)));
        assertEquals(MessageOracle.Outcome.ACCEPTED_READ, checker.check(valid));
        assertEquals(MessageOracle.Outcome.REJECTED, checker.check(new byte[3]));
        assertEquals("message shorter than its header", checker.lastRule);
        // A chain whose root refers to itself: valid, readable by views, refused by the materializer (cycle through records).
        byte[] cycle = valid.clone();
        MessageLayout l = MessageLayout.of(cycle);
        boolean patched = false;
        for (int p = MessageDescriptor.HEADER_LENGTH; p < l.tail() && !patched; p += 4) {
            if (MessageLayout.getInt(cycle, p) == 1) {
                MessageLayout.putInt(cycle, p, 0);
                patched = true;
            }
        }
        assertTrue(patched);
        assertEquals(MessageOracle.Outcome.ACCEPTED_RECORD_CYCLE, checker.check(cycle));
        CampaignResult r = Campaign.run(99, 500, Long.MAX_VALUE, 1, dir);
        assertEquals(500, r.iterations());
        assertEquals(r.iterations(), r.accepted() + r.rejected() + r.failureCount(), r::summary);
    }

    /** A case that does not finish is reported as a hang with its iteration, and the campaign carries on without it. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aHungCaseIsReportedAndTheCampaignCarriesOn(@TempDir Path dir) throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Campaign.Options options = new Campaign.Options(2, dir, 300, false, it -> {
            if (it == 77) {
                try {
                    release.await(); // stands for a validate or read that never returns
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        CampaignResult r;
        try {
            r = Campaign.run(5, 400, Long.MAX_VALUE, options);
        } finally {
            release.countDown();
        }
        List<CampaignResult.Failure> hangs = r.failures().stream().filter(x -> x.what().startsWith("hang")).toList();
        assertEquals(1, hangs.size(), r::summary);
        CampaignResult.Failure f = hangs.getFirst();
        assertEquals(77, f.iteration());
        assertNotNull(f.hexFile());
        String hex = Files.readString(f.hexFile());
        assertTrue(hex.contains("--replay 77"), hex);
        assertTrue(hex.contains("stack of the hung thread"), hex);
        assertEquals(400, r.iterations(), "the other iterations ran on a new worker");
    }
}
