package dev.verbatim.bench.transport;

import dev.verbatim.bench.harness.Medium;
import dev.verbatim.bench.harness.Session;
import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * The peer to beat: Aeron IPC ({@code aeron:ipc}) between two processes, an embedded media driver
 * in the pong process, the ping process a client of it through the same driver directory (inside
 * the session directory under {@code /dev/shm}, deleted afterwards). Ping and pong busy-spin
 * ({@link Thread#onSpinWait()}, Aeron's {@link BusySpinIdleStrategy}) on
 * {@link ExclusivePublication#offer} and {@link Subscription#poll}; messages longer than the IPC
 * MTU are reassembled by a {@link FragmentAssembler}, as an Aeron application must.
 *
 * <p>The driver's threading ({@value #MODE_PROPERTY}), for a 2-core host where ping and pong
 * already spin on both cores: {@code shared-backoff} (the default) runs the driver's agents on one
 * thread that spins briefly, then yields and parks, so it takes CPU only when it has work (the IPC
 * data path does not go through the driver: the conductor only advances the publication limits);
 * {@code shared-busy} spins that thread too (a third spinner on two cores); {@code dedicated} is
 * three backing-off threads; {@code invoker} runs the driver's duty cycle from the pong's own idle
 * loop, no driver thread at all. Measured here (2 cores, quick runs): {@code shared-busy} has the same
 * p50 but p99 2-3x worse (three spinners on two cores); {@code invoker} stalls round trips for
 * milliseconds (the driver runs too rarely to advance the publication limit).
 */
final class AeronPingPong implements PingPongContender {
    static final String MODE_PROPERTY = "verbatim.bench.aeron.mode";
    private static final String CHANNEL = "aeron:ipc";
    private static final int PING_STREAM = 1001;
    private static final int PONG_STREAM = 1002;
    /** Messages shorter than the harness's smallest (8 bytes) end the run. */
    private static final int BYE_LENGTH = 4;
    private static final long CONNECT_TIMEOUT_NANOS = 20_000_000_000L;
    /**
     * 16 MiB: the publication window (a term) holds 256 round trips of 64 KiB, so the driver's
     * conductor, which alone advances the publication limit, may be off its CPU for milliseconds on a
     * busy 2-core host without stalling the ping (with 4 MiB, 64 KiB round trips stalled for ~8 ms at
     * times); smaller than the 64 MiB default, so the log of small messages stays nearer the caches.
     */
    static final int IPC_TERM_LENGTH = 16 << 20;

    @Override
    public String name() {
        return "aeron";
    }

    @Override
    public Medium medium() {
        return Medium.SHM;
    }

    @Override
    public List<String> jvmFlags() {
        // Agrona reaches jdk.internal.misc.Unsafe and the NIO internals; bounds checks off as in Aeron's own benchmarks.
        return List.of("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.base/java.util.zip=ALL-UNNAMED",
                "-Dagrona.disable.bounds.checks=true",
                "-D" + MODE_PROPERTY + "=" + mode());
    }

    static String mode() {
        return System.getProperty(MODE_PROPERTY, "shared-backoff").toLowerCase(Locale.ROOT);
    }

    private static String aeronDir(Session session) {
        return session.dir().resolve("aeron").toString();
    }

    @Override
    public Pong pong(Session session) throws Exception {
        String mode = mode();
        MediaDriver.Context ctx = new MediaDriver.Context()
                .aeronDirectoryName(aeronDir(session))
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .termBufferSparseFile(false)
                .ipcTermBufferLength(IPC_TERM_LENGTH)
                .spiesSimulateConnection(false);
        switch (mode) {
            case "shared-backoff" -> ctx.threadingMode(ThreadingMode.SHARED).sharedIdleStrategy(new BackoffIdleStrategy());
            case "shared-busy" -> ctx.threadingMode(ThreadingMode.SHARED).sharedIdleStrategy(new BusySpinIdleStrategy());
            case "dedicated" -> ctx.threadingMode(ThreadingMode.DEDICATED)
                    .conductorIdleStrategy(new BackoffIdleStrategy())
                    .senderIdleStrategy(new BackoffIdleStrategy())
                    .receiverIdleStrategy(new BackoffIdleStrategy());
            case "invoker" -> ctx.threadingMode(ThreadingMode.INVOKER);
            default -> throw new IllegalArgumentException(MODE_PROPERTY + ": unknown mode " + mode);
        }
        MediaDriver driver = MediaDriver.launch(ctx);
        Aeron aeron = null;
        try {
            Aeron.Context actx = new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName());
            if (driver.sharedAgentInvoker() != null) {
                actx.driverAgentInvoker(driver.sharedAgentInvoker()).useConductorAgentInvoker(true);
            }
            aeron = Aeron.connect(actx);
            Subscription sub = aeron.addSubscription(CHANNEL, PING_STREAM);
            ExclusivePublication pub = aeron.addExclusivePublication(CHANNEL, PONG_STREAM);
            return new AeronPong(driver, aeron, sub, pub, session.replyMax());
        } catch (Exception | Error e) {
            if (aeron != null) {
                aeron.close();
            }
            driver.close();
            throw e;
        }
    }

    @Override
    public Ping ping(Session session) throws Exception {
        Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir(session)));
        try {
            ExclusivePublication pub = aeron.addExclusivePublication(CHANNEL, PING_STREAM);
            Subscription sub = aeron.addSubscription(CHANNEL, PONG_STREAM);
            long deadline = System.nanoTime() + CONNECT_TIMEOUT_NANOS;
            while (!pub.isConnected() || !sub.isConnected()) { // the pong subscribes and publishes first
                if (System.nanoTime() > deadline) {
                    throw new IOException("aeron: ping not connected to pong within 20 s");
                }
                Thread.sleep(1);
            }
            return new AeronPing(aeron, pub, sub, session.replyMax());
        } catch (Exception | Error e) {
            aeron.close();
            throw e;
        }
    }

    /** Offers until accepted, spinning; fails when the stream can never take it. */
    static void offer(Publication pub, DirectBuffer buf, int offset, int length, IdleStrategy idle) throws IOException {
        long r;
        while ((r = pub.offer(buf, offset, length)) < 0) {
            if (r == Publication.CLOSED || r == Publication.MAX_POSITION_EXCEEDED) {
                throw new IOException("aeron: publication " + (r == Publication.CLOSED ? "closed" : "at max position"));
            }
            idle.idle(); // BACK_PRESSURED, NOT_CONNECTED (briefly), ADMIN_ACTION
        }
        idle.reset();
    }

    /** An {@link UnsafeBuffer} over a native segment, re-wrapped only when the segment changes. */
    static final class View {
        final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);

        UnsafeBuffer of(MemorySegment s) {
            if (buffer.addressOffset() != s.address() || buffer.capacity() != (int) Math.min(s.byteSize(), Integer.MAX_VALUE)) {
                buffer.wrap(s.address(), (int) Math.min(s.byteSize(), Integer.MAX_VALUE));
            }
            return buffer;
        }
    }

    static final class AeronPing implements Ping {
        private final Aeron aeron;
        private final ExclusivePublication pub;
        private final Subscription sub;
        private final IdleStrategy idle = new BusySpinIdleStrategy();
        private final View out = new View();
        private final View in = new View();
        private final FragmentAssembler assembler;
        private final int replyMax;
        private UnsafeBuffer reply;
        private int received = -1;

        AeronPing(Aeron aeron, ExclusivePublication pub, Subscription sub, int replyMax) {
            this.aeron = aeron;
            this.replyMax = replyMax;
            this.pub = pub;
            this.sub = sub;
            FragmentHandler onReply = (buffer, offset, length, header) -> {
                buffer.getBytes(offset, reply, 0, length);
                received = length;
            };
            this.assembler = new FragmentAssembler(onReply);
        }

        @Override
        public void roundTrip(MemorySegment message, MemorySegment replySegment, int size) throws IOException {
            reply = in.of(replySegment);
            received = -1;
            offer(pub, out.of(message), 0, size, idle);
            while (received < 0) {
                if (sub.poll(assembler, 1) == 0) {
                    idle.idle();
                }
            }
            idle.reset();
            if (received != Math.min(size, replyMax)) {
                throw new IOException("aeron: echo of " + received + " bytes, sent " + size);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                offer(pub, new UnsafeBuffer(new byte[BYE_LENGTH]), 0, BYE_LENGTH, idle);
            } finally {
                aeron.close();
            }
        }
    }

    static final class AeronPong implements Pong {
        private final MediaDriver driver;
        private final Aeron aeron;
        private final Subscription sub;
        private final ExclusivePublication pub;
        private final IdleStrategy idle = new BusySpinIdleStrategy();
        private final FragmentAssembler assembler;
        private final org.agrona.concurrent.AgentInvoker invoker;
        private final org.agrona.concurrent.AgentInvoker clientInvoker;
        private IOException failure;
        private boolean echoed;
        private boolean bye;

        AeronPong(MediaDriver driver, Aeron aeron, Subscription sub, ExclusivePublication pub, int replyMax) {
            this.driver = driver;
            this.aeron = aeron;
            this.sub = sub;
            this.pub = pub;
            this.invoker = driver.sharedAgentInvoker();
            this.clientInvoker = aeron.conductorAgentInvoker();
            FragmentHandler onMessage = (buffer, offset, length, header) -> {
                if (length < 8) {
                    bye = true;
                    return;
                }
                try {
                    offer(pub, buffer, offset, Math.min(length, replyMax), idle); // all of it but in the rpc suite
                } catch (IOException e) {
                    failure = e;
                }
                echoed = true;
            };
            this.assembler = new FragmentAssembler(onMessage);
        }

        @Override
        public boolean echo() throws IOException {
            echoed = false;
            int idleCount = 0;
            while (!echoed && !bye) {
                if (sub.poll(assembler, 1) == 0) {
                    if (invoker != null && (++idleCount & 63) == 0) { // invoker mode: the driver runs here
                        invoker.invoke();
                        if (clientInvoker != null) {
                            clientInvoker.invoke();
                        }
                    }
                    idle.idle();
                }
                if (failure != null) {
                    throw failure;
                }
            }
            idle.reset();
            return !bye;
        }

        @Override
        public void close() {
            try {
                aeron.close();
            } finally {
                driver.close();
            }
        }
    }
}
