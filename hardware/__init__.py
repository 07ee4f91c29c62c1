"""hardware — the serial LED board and the chess clock, with simulators.

- `protocol`: the wire format of PROTOCOL.md, sans-IO (bytes in, messages out);
- `link`: the transport over pyserial (open, HELLO, ACK/resend, ping, reconnect);
- `devices`: one interface per kind of device (`SerialClock`, `SerialLeds`) emitting `events`;
- `clock`: time controls and clock arithmetic, moves bound to presses, what a flag means;
- `leds`: what the LEDs show, as pure functions from game state to a frame;
- `wled`: off-the-shelf WS2812 strips through WLED (UDP) or Adalight (serial);
- `simulator`: the firmware's logic as a virtual device on a pty or a TCP port.
"""
