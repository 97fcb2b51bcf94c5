# RULES.md §2.5 INTERP: a declaration can be changed until the next player in rotation declares. Seat 2
# leaves the table before his turn to declare: he goes on top (his ante stays in the tops) without
# declaring in rotation, so seat 1's knock stays open until seat 3, the next to declare, declares. Seat 3
# declares last and keeps his window until the first card is drawn from the stock.
# Chips: every seat antes 1 (100 - 1 = 99; seat 2 takes his 99 back to the bank: his seat is empty);
# the tops hold the four antes.
rules california retire_forfeit_chips=0 going_out_units=2
sit 1001 buyin=100 seat=0
sit 1002 buyin=100 seat=1
sit 1003 buyin=100 seat=2
sit 1004 buyin=100 seat=3
deal first=0 | 0: 5S 5S 2C 6C QC 3D 7D KD 4H JH | 1: 3C 7C KC 4D JD AH 5H 2S 6S QS | 2: 4C JC AD 5D 2H 6H QH 3S 7S KS | 3: 2C 4C 6C QC AD 3D 5D 7D JH KH | stock: 5S KH KH 2S 2S
stand 2
0 knock
1 knock
! 0 top => DeclarationClosed: only until the next player declares
1 top
1 knock
3 top
! 1 top => DeclarationClosed: only until the next player declares
3 knock
3 top
expect stacks=99,99,-,99 singles=4
0 pluck
! 3 knock => DeclarationClosed: until the first card is drawn
