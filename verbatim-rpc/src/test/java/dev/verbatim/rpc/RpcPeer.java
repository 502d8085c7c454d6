package dev.verbatim.rpc;

/** The other process of the RPC process tests. */
public final class RpcPeer {
    private RpcPeer() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "serve" -> {
                try (Node n = Node.listen(args[1])) {
                    n.export("calc", Api.Calc.class, new Api.CalcImpl());
                    System.out.println("READY " + n.addresses().getFirst());
                    System.out.flush();
                    Thread.sleep(120_000);
                }
            }
            case "hold" -> {
                Node n = Node.create();
                Api.Calc calc = n.lookup(args[1], "calc", Api.Calc.class);
                Api.Counter held = calc.counter(); // the server now exports an object for us
                System.out.println("HOLDING " + held.add(1));
                System.out.flush();
                calc.sleep(args.length > 2 ? Long.parseLong(args[2]) : 120_000); // killed in the middle of this call
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
