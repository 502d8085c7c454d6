package dev.verbatim.transport;

/**
 * Receives messages from {@link Connection#poll(DeliveryHandler, int)} without allocating: the
 * delivery passed in is a reused flyweight valid only during the call, released when it returns
 * unless {@link Delivery#retain()} was called.
 */
@FunctionalInterface
public interface DeliveryHandler {
    void onDelivery(Delivery delivery);
}
