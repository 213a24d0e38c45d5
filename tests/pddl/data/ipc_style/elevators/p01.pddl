; Five floors (also used as load counters 0..2); a slow car for the low floors, a fast one for even floors.
(define (problem elevators-style-1)
  (:domain elevators-style)
  (:objects l0 l1 l2 l3 l4 - level
            ann bob - person
            express - fast-car
            local - slow-car)
  (:init (succ l0 l1) (succ l1 l2) (succ l2 l3) (succ l3 l4)
         (higher l1 l0) (higher l2 l0) (higher l3 l0) (higher l4 l0) (higher l2 l1) (higher l3 l1)
         (higher l4 l1) (higher l3 l2) (higher l4 l2) (higher l4 l3)
         (car-at express l0) (load express l0) (room-for express l1) (room-for express l2)
         (serves express l0) (serves express l2) (serves express l4)
         (car-at local l2) (load local l0) (room-for local l1)
         (serves local l0) (serves local l1) (serves local l2) (serves local l3)
         (waiting ann l4) (waiting bob l1))
  (:goal (and (waiting ann l1) (waiting bob l4))))
