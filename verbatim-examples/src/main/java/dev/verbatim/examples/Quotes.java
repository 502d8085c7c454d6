package dev.verbatim.examples;

import dev.verbatim.examples.WireExample.OrderView;

/**
 * The interface a server exports and its clients call: all they share. {@code quote} takes an order by
 * copy (a record); {@code submit} takes it as a view read in place (an accessor interface, which
 * {@link WireExample.Order} implements), so the server may keep it past the call only by {@code Node.keep}.
 */
public interface Quotes {
    /** What a quote says. */
    record Quote(String symbol, double bid, double ask) {}

    Quote quote(WireExample.Order order);

    void submit(OrderView order);

    /** How many orders were submitted and processed so far. */
    int processed();
}
