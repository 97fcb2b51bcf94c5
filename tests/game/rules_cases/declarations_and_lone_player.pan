# RULES.md §10 cases 52 and 54 (§2.5): seat 0 goes on top, then changes to in before seat 1 declares
# (allowed); once seat 1 has declared, seat 0 can no longer change. Seats 1 and 2 go on top
# (forfeiting the ante only, retire_forfeit_chips = 0): the lone player takes the tops, nothing else.
rules california retire_forfeit_chips=0 going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
deal first=0 | 0: 5S 5S 2C 6C QC 3D 7D KD 4H JH | 1: 3C 7C KC 4D JD AH 5H 2S 6S QS | 2: 4C JC AD 5D 2H 6H QH 3S 7S KS | stock: 5S KH KH
0 top
0 knock
1 top
! 0 top => RuleViolation: only until the next player declares
2 top
expect stacks=102,99,99 singles=0
