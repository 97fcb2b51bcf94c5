# Seat 1 takes seat 0's unused pluck 5H as the option card (5D 5C 5H, 1 from each).
# Seat 0 discards 7H from his hand onto his own 4H 5H 6H; seat 1 forces it back; seat 0 goes out later.
rules california
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
start first=0 shoe=4H 5H 7H 2C 3C 5D 5C 3C 7C KC 4C JC AD 5D 2H 4C 5C 6C AS JC 4D JD AH 2S 6S 6H QH 3S 7S KS KH 5H KH 6H KH KH 7C 2C 2C 2C 2C 2C 2C 2C 2C
0 knock
1 knock
2 knock
0 pluck
0 discard
0 pluck
0 discard
1 option
1 meld 5D 5C
1 discard 3C
2 pluck
2 discard
0 pluck
0 meld 4H 5H
0 discard 7H
1 force 0 7H
0 add 1
0 discard AS
1 pluck
1 discard
2 pluck
2 discard
0 pluck
0 meld 2C 3C 4C 5C 6C JC
