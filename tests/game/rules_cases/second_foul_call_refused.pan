# Issue #21: a foul call on a player already fouled is refused, so his refunds are paid once
# (§6.3: he repays what he collected; §6.1: a call needs a cause, and he is no longer in action).
# Seat 0 collects 4 from each for 5S 5S 5S, goes away, and is called foul for abandoning the hand:
# he refunds 4 to each. A second call (by a player or the floor) is refused. The last two split the
# tops (§7.6): 1 chip each, the odd chip stays in the pot (split_odd_chip = carry).
rules california split_odd_chip=carry going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: 5S 5S 2C 6C QC 3D 7D KD 4H JH | 1: 3C 7C KC 4D JD AH 5H 2S 6S QS | 2: 4C JC AD 5D 2H 6H QH 3S 7S KS | stock: 5S KH KH KH KH
0 knock
1 knock
2 knock
0 pluck
0 meld 5S 5S
0 discard 2C
expect stacks=107,95,95 singles=3
! 1 foul 0 abandoned => RuleViolation: not abandoned
away 0 on
1 foul 0 abandoned
expect stacks=99,99,99 singles=3
! 2 foul 0 abandoned => RuleViolation: not in action
! floor foul 0 => RuleViolation: not in action
! 0 foul 1 abandoned => RuleViolation: Only a player in action may call
1 split offer
2 split accept
expect stacks=99,100,100 singles=1
