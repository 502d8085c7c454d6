package dev.verbatim.transport;

import java.time.Duration;
import java.util.Objects;

/**
 * How a connection is set up. The receive-side values ({@link #areaCount}, {@link #areaSize}) are
 * this side's receive window: the receiver dictates it and announces it to the sender at the
 * handshake (J-RPC §5.2). Immutable; start from {@link #DEFAULT} and use the {@code with*} methods.
 *
 * @param areaCount       receive areas of this side, 2 to 64. A message lies in one area; an area
 *                        is reused once every message in it was released.
 * @param areaSize        bytes per receive area, a multiple of 4096 from 64 KiB to 1 GiB. The
 *                        largest message is {@code areaSize - 24} bytes; the receive memory is
 *                        {@code areaCount * areaSize} (on {@code shm}, pages are touched only as
 *                        they are used).
 * @param sendTimeout     the longest {@link Connection#claim(int)} waits for the receiver to free
 *                        space before throwing {@link TransportException.Reason#TIMEOUT}
 * @param connectTimeout  the longest a connect or an accept handshake takes
 * @param spinNanos       how long a waiting receiver or sender spins before it parks (futex)
 * @param spinOnly        latency mode: never park, spin until the deadline (burns a core)
 */
public record ConnectionOptions(int areaCount, int areaSize, Duration sendTimeout, Duration connectTimeout,
                                long spinNanos, boolean spinOnly) {

    public static final int MIN_AREAS = 2;
    public static final int MAX_AREAS = 64;
    public static final int MIN_AREA_SIZE = 64 * 1024;
    public static final int MAX_AREA_SIZE = 1 << 30;

    /** 8 areas of 2 MiB (messages up to 2 MiB - 24 B), 10 s send timeout, 5 s connect, spin 50 µs. */
    public static final ConnectionOptions DEFAULT = new ConnectionOptions(
            8, 2 << 20, Duration.ofSeconds(10), Duration.ofSeconds(5), 50_000, false);

    public ConnectionOptions {
        if (areaCount < MIN_AREAS || areaCount > MAX_AREAS) {
            throw new IllegalArgumentException(
                    "areaCount must be between " + MIN_AREAS + " and " + MAX_AREAS + ": " + areaCount);
        }
        if (areaSize < MIN_AREA_SIZE || areaSize > MAX_AREA_SIZE || areaSize % 4096 != 0) {
            throw new IllegalArgumentException("areaSize must be a multiple of 4096 between "
                    + MIN_AREA_SIZE + " and " + MAX_AREA_SIZE + ": " + areaSize);
        }
        Objects.requireNonNull(sendTimeout, "sendTimeout");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        if (sendTimeout.isNegative() || connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive: send " + sendTimeout
                    + ", connect " + connectTimeout);
        }
        if (spinNanos < 0) {
            throw new IllegalArgumentException("spinNanos must not be negative: " + spinNanos);
        }
    }

    public ConnectionOptions withAreas(int count, int size) {
        return new ConnectionOptions(count, size, sendTimeout, connectTimeout, spinNanos, spinOnly);
    }

    public ConnectionOptions withSendTimeout(Duration timeout) {
        return new ConnectionOptions(areaCount, areaSize, timeout, connectTimeout, spinNanos, spinOnly);
    }

    public ConnectionOptions withConnectTimeout(Duration timeout) {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, timeout, spinNanos, spinOnly);
    }

    public ConnectionOptions withSpin(long nanos, boolean only) {
        return new ConnectionOptions(areaCount, areaSize, sendTimeout, connectTimeout, nanos, only);
    }

    /** The largest message (or region) this side can receive. */
    public int maxMessageLength() {
        return areaSize - 24;
    }
}
