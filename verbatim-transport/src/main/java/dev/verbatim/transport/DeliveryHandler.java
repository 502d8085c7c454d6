package dev.verbatim.transport;

/**
 * Receives messages from {@link Connection#poll(DeliveryHandler, int)} without allocating: the
 * delivery passed in is a reused flyweight valid only during the call, released when it returns
 * unless {@link Delivery#retain()} was called.
 *
 * <p>The handler says whether the poll goes on: {@link Action#CONTINUE} hands it the next arrived
 * message (up to the poll's limit), {@link Action#STOP} ends the poll after this delivery, which is
 * counted in what {@code poll} returns (as Aeron's controlled fragment handlers do). A handler never
 * needs to throw to leave a poll early.
 */
@FunctionalInterface
public interface DeliveryHandler {
    /** What a poll does after a delivery. */
    enum Action {
        /** Hand over the next arrived message, if any and the poll's limit allows. */
        CONTINUE,
        /** Return from the poll now; this delivery is counted, the next message stays for a later poll. */
        STOP
    }

    /** Handles one message; the returned action says whether the poll goes on. */
    Action onDelivery(Delivery delivery);
}
