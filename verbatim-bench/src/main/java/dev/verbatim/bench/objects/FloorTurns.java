package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.CallLoop;
import dev.verbatim.bench.harness.ScratchDir;
import dev.verbatim.bench.harness.Session;
import dev.verbatim.bench.transport.Contenders;
import dev.verbatim.bench.transport.PingPongContender;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The shm floor in the objects suite ({@code floor} in {@code shm/call-null}): the transport suite's FFM spin
 * ping-pong of 8 bytes between process 0 and process 1, in the same run as the calls it bounds, so that a host whose
 * cores are slow to hand each other a line (the floor moved between 111 and 370 ns from day to day) is seen as such:
 * no call over shm can be faster than its round trip.
 *
 * <p>Turn by turn: the pong spins for its whole life, so process 1 starts one per turn when process 0 asks ({@link
 * Pongs#startFloor}, a plain RPC call, at {@link CallLoop.Call#beginTurn}) and it ends when the ping closes at the
 * turn's end; between turns nothing of it runs.
 */
public final class FloorTurns {
    private FloorTurns() {}

    /** What process 1 exports (plain RPC, {@code floor}): starts the pong side of one floor turn. */
    public interface FloorService {
        /**
         * Starts the pong of floor turn {@code turn} over a file of its own ({@link #turnSession}) once the previous
         * turn's pong ended (its directory then goes); returns when the pong is ready.
         */
        void startFloor(int turn);
    }

    private static PingPongContender floor() {
        return Contenders.pingPong("shm/floor");
    }

    /** The session of floor turn {@code turn}: a directory of its own under {@code s}'s, 8-byte messages. */
    static Session turnSession(Session s, int turn) throws IOException {
        Path dir = Files.createDirectories(s.dir().resolve("floor-" + turn));
        return new Session(Session.properties(dir, 8, 0));
    }

    /** Process 1's side: at most one pong at a time, on a thread of its own. */
    static final class Pongs implements FloorService {
        private final Session session;
        private Thread running;
        private Path runningDir;

        Pongs(Session session) {
            this.session = session;
        }

        @Override
        public synchronized void startFloor(int turn) {
            try {
                if (running != null) {
                    running.join(TimeUnit.SECONDS.toMillis(30)); // (its ping closed at the end of the last turn)
                    if (running.isAlive()) {
                        throw new IllegalStateException("the last floor turn's pong did not end");
                    }
                    ScratchDir.deleteTree(runningDir);
                }
                Session t = turnSession(session, turn);
                PingPongContender.Pong pong = floor().pong(t);
                runningDir = t.dir();
                running = Thread.ofPlatform().daemon().name("verbatim-bench-floor-pong").start(() -> {
                    try (pong) {
                        while (pong.echo()) {
                            // echoes until the ping closes
                        }
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the last floor turn's pong ended", e);
            } catch (Exception e) {
                throw new IllegalStateException("no floor pong: " + e, e);
            }
        }
    }

    /**
     * Process 0's side of every floor turn: {@link #beginTurn} has process 1 start a pong and opens the ping, each call
     * is one round trip of 8 bytes (the sequence number, echoed: the call returns what came back minus what went),
     * {@link #endTurn} closes the ping, which ends the pong.
     */
    static final class Ping implements CallLoop.Call {
        private final FloorService pongs;
        private final Session session;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment message = arena.allocate(8, 64);
        private final MemorySegment reply = arena.allocate(8, 64);
        private PingPongContender.Ping ping;
        private int turns;

        Ping(FloorService pongs, Session session) {
            this.pongs = pongs;
            this.session = session;
        }

        @Override
        public void beginTurn() throws Exception {
            int turn = ++turns;
            pongs.startFloor(turn);
            ping = floor().ping(turnSession(session, turn));
        }

        @Override
        public long call(long seq) throws Exception {
            message.set(ValueLayout.JAVA_LONG, 0, seq);
            ping.roundTrip(message, reply, 8);
            return reply.get(ValueLayout.JAVA_LONG, 0) - seq;
        }

        @Override
        public void endTurn() throws Exception {
            PingPongContender.Ping p = ping;
            ping = null;
            if (p != null) {
                p.close();
            }
        }
    }
}
